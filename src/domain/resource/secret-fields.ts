import { Resource } from '../scope';
import { RecordLocation } from './resource-record';

// Fields of top-level records that map names to secret string values. Only an
// upstream MCP server's headers (Authorization and the like) today; the header
// names are not secret.
const SECRET_FIELDS: Partial<Record<Resource, readonly string[]>> = { mcp_servers: ['headers'] };

/**
 * The secret fields of records at `at`: their values are stored encrypted,
 * never matched by search or query, and never shown.
 */
export function secretFieldsAt(at: RecordLocation): readonly string[] {
  return at.parentId === null ? (SECRET_FIELDS[at.resource] ?? []) : [];
}

/** Resources whose top-level records may hold secrets. */
export const RESOURCES_WITH_SECRETS = Object.keys(SECRET_FIELDS) as Resource[];
