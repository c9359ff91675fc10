import { ConflictError, NotFoundError, ValidationError } from '../../../../domain/errors';
import { RecordLocation, ResourceRecord, topLevel } from '../../../../domain/resource/resource-record';
import { MAX_LISTED_RECORDS, ResourceStore } from '../../../ports/resource-store.port';
import { ToolValue } from '../tool-outcome';
import { storable } from './data-limits';
import { ResourcePolicy, showAll } from './resource-policy';
import { ToolCommand } from './tool-command';
import { filterFor, forbidId, requireId } from './tool-data';
import { listed, one } from './tool-values';

/**
 * Actions on a resource's own records (no subresource named):
 * create (data) · get, update (merges data), delete, execute (id) ·
 * list · search (data.text) · query (data.where).
 * Stored data is held to MAX_RECORD_DATA_BYTES; what is returned passes
 * through the policy's mask.
 */
export async function runRecordAction(
  store: ResourceStore,
  ownerId: string,
  command: ToolCommand,
  policy: ResourcePolicy,
): Promise<ToolValue> {
  const { resource, action, id, data } = command;
  const at = topLevel(resource);
  const shown = (record: ResourceRecord) => one(record, policy.mask);
  const found = async (recordId: string) => {
    const record = await store.find(ownerId, at, recordId);
    if (!record) throw new NotFoundError(resource, recordId);
    return record;
  };
  switch (action) {
    case 'create': {
      forbidId(id, action);
      return shown(await createWithin(store, ownerId, at, storable(policy.check(data)), policy));
    }
    case 'get':
      return shown(await found(requireId(id, action)));
    case 'list':
    case 'search':
    case 'query':
      return listed(await store.list(ownerId, at, filterFor(action, data), MAX_LISTED_RECORDS + 1), policy.mask);
    case 'update': {
      const record = await found(requireId(id, action));
      const updated = await store.update(ownerId, at, record.id, storable(policy.check(policy.merge(record.data, data))));
      if (!updated) throw new NotFoundError(resource, record.id);
      return shown(updated);
    }
    case 'delete': {
      const recordId = requireId(id, action);
      if (!(await store.remove(ownerId, at, recordId))) throw new NotFoundError(resource, recordId);
      return { kind: 'deleted', id: recordId };
    }
    case 'execute': {
      // keygate records the request; running it is the platform backend's job.
      const record = await found(requireId(id, action));
      const execution = await store.create(
        ownerId,
        { resource, parentId: record.id, subresource: 'executions' },
        storable({ status: 'queued', input: data }),
      );
      return one(execution, showAll, 'execution');
    }
    case 'assign':
    case 'unassign':
      throw ValidationError.single('subresource', `is required for ${action}: name what to ${action} on the record`);
  }
}

/** Creates within the policy's per-owner limit, if it has one: a create past it is a ConflictError. */
export async function createWithin(
  store: ResourceStore,
  ownerId: string,
  at: RecordLocation,
  data: Record<string, unknown>,
  policy: ResourcePolicy,
): Promise<ResourceRecord> {
  if (!policy.limit) return store.create(ownerId, at, data);
  const record = await store.createWithinLimit(ownerId, at, data, policy.limit.max);
  if (!record) throw new ConflictError(policy.limit.refusal);
  return record;
}
