import { echoInput, NotFoundError, ValidationError } from '../../../../domain/errors';
import { RecordLocation, topLevel } from '../../../../domain/resource/resource-record';
import { isResource, Resource } from '../../../../domain/scope';
import { MAX_LISTED_RECORDS, ResourceStore } from '../../../ports/resource-store.port';
import { ToolValue } from '../tool-outcome';
import { storable } from './data-limits';
import { ToolCommand } from './tool-command';
import { filterFor, requireId, uuidField, without } from './tool-data';
import { listed, one } from './tool-values';

/**
 * Actions on a subresource of one record; `id` always names that parent record
 * and `data.item_id` one of its items:
 * create (data) · get (data.item_id, or all items) · list · search · query ·
 * update, delete (data.item_id) · assign, unassign (data.target_id, another of
 * the owner's records; data.target_resource, default mcp_servers for `mcp`) ·
 * execute (records a queued execution item).
 * Stored data is held to MAX_RECORD_DATA_BYTES. Items have no secrets to mask.
 */
export async function runItemAction(store: ResourceStore, ownerId: string, command: ToolCommand): Promise<ToolValue> {
  const { resource, action, data } = command;
  const parentId = requireId(command.id, `${action} on ${command.subresource}`);
  if (!(await store.find(ownerId, topLevel(resource), parentId))) throw new NotFoundError(resource, parentId);
  const at: RecordLocation = { resource, parentId, subresource: command.subresource };
  const item = async () => {
    const itemId = uuidField(data, 'item_id', `to ${action} one ${command.subresource} item`);
    const found = await store.find(ownerId, at, itemId);
    if (!found) throw new NotFoundError(`${resource} ${command.subresource} item`, itemId);
    return found;
  };
  const all = async () => listed(await store.list(ownerId, at, filterFor(action, data), MAX_LISTED_RECORDS + 1));
  switch (action) {
    case 'create':
    case 'execute': {
      const fields = action === 'execute' ? { status: 'queued', input: data } : data;
      return one(await store.create(ownerId, at, storable(fields)));
    }
    case 'get':
      return data.item_id === undefined ? all() : one(await item());
    case 'list':
    case 'search':
    case 'query':
      return all();
    case 'update': {
      const found = await item();
      const updated = await store.update(ownerId, at, found.id, storable({ ...found.data, ...without(data, 'item_id') }));
      return one(updated!);
    }
    case 'delete': {
      const found = await item();
      await store.remove(ownerId, at, found.id);
      return { kind: 'deleted', id: found.id };
    }
    case 'assign':
    case 'unassign':
      return assignment(store, ownerId, at, command);
  }
}

async function assignment(store: ResourceStore, ownerId: string, at: RecordLocation, command: ToolCommand): Promise<ToolValue> {
  const targetId = uuidField(command.data, 'target_id', `for ${command.action}`);
  const assigned = await store.list(ownerId, at, { where: { target_id: targetId } });
  if (command.action === 'unassign') {
    if (assigned.length === 0) throw new NotFoundError(`assignment of ${command.subresource}`, targetId);
    for (const item of assigned) await store.remove(ownerId, at, item.id);
    return { kind: 'unassigned', id: targetId };
  }
  if (assigned.length > 0) return one(assigned[0]);
  const targetResource = targetOf(command);
  if (!(await store.find(ownerId, topLevel(targetResource), targetId))) throw new NotFoundError(targetResource, targetId);
  const item = await store.create(ownerId, at, { target_id: targetId, target_resource: targetResource });
  return one(item);
}

function targetOf(command: ToolCommand): Resource {
  const named = command.data.target_resource;
  if (named === undefined) return command.subresource === 'mcp' ? 'mcp_servers' : command.resource;
  if (typeof named !== 'string' || !isResource(named)) {
    throw ValidationError.single('data.target_resource', `${echoInput(named)} is not a resource group`);
  }
  return named;
}
