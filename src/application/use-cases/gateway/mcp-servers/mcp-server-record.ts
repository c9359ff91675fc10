import { ValidationError } from '../../../../domain/errors';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { ToolPin } from '../../../../domain/tool';
import { isUuid } from '../../../../domain/uuid';
import { ResourcePolicy } from '../built-in/resource-policy';

/** A server record as its owner sees it: header values masked, with its pinned tool definitions. */
export interface McpServerView {
  record: ResourceRecord;
  pins: ToolPin[];
}

/** The record id an action names; the messages are the mcp_servers tool's own. */
export function serverIdOf(id: string | null | undefined, action: string): string {
  if (id === null || id === undefined) throw ValidationError.single('id', `is required for ${action}`);
  if (!isUuid(id)) throw ValidationError.single('id', 'must be a record id (a UUID)');
  return id;
}

/** The record with its data as the policy lets the owner see it (header values masked). */
export function shown(record: ResourceRecord, policy: ResourcePolicy): ResourceRecord {
  return { ...record, data: policy.mask(record) };
}

/** `data` as the use-cases take it: an object of the server's fields. */
export function serverData(data: Record<string, unknown> | undefined): Record<string, unknown> {
  if (data === undefined) return {};
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw ValidationError.single('data', 'must be an object');
  return data;
}
