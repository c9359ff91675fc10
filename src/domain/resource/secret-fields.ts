import { Resource } from '../scope';
import { RecordLocation } from './resource-record';

/** Which names of a field hold secret string values: every one (`'*'`), or those listed. */
type SecretNames = '*' | readonly string[];

// Fields of top-level records that hold secret string values. An upstream MCP
// server's headers (Authorization and the like: every value, the names are not
// secret) and the client secret of its auth (the auth type and client id are not).
const SECRET_FIELDS: Partial<Record<Resource, Readonly<Record<string, SecretNames>>>> = {
  mcp_servers: { headers: '*', auth: ['client_secret'] },
};

/**
 * The fields of records at `at` that hold secrets: those values are stored
 * encrypted, never matched by search or query, and never shown.
 */
export function secretFieldsAt(at: RecordLocation): readonly string[] {
  return at.parentId === null ? Object.keys(SECRET_FIELDS[at.resource] ?? {}) : [];
}

/** Whether the value under `name` in `field` of a record at `at` is a secret. */
export function isSecretName(at: RecordLocation, field: string, name: string): boolean {
  if (at.parentId !== null) return false;
  const names = SECRET_FIELDS[at.resource]?.[field];
  return names === '*' || (names !== undefined && names.includes(name));
}

/** `data` without its secret values: a field whose every name is secret goes whole. */
export function withoutSecretValues(at: RecordLocation, data: Record<string, unknown>): Record<string, unknown> {
  const result = { ...data };
  for (const field of secretFieldsAt(at)) {
    const values = result[field];
    if (typeof values !== 'object' || values === null || Array.isArray(values)) continue;
    if (SECRET_FIELDS[at.resource]?.[field] === '*') delete result[field];
    else result[field] = Object.fromEntries(Object.entries(values).filter(([name]) => !isSecretName(at, field, name)));
  }
  return result;
}

/** Resources whose top-level records may hold secrets. */
export const RESOURCES_WITH_SECRETS = Object.keys(SECRET_FIELDS) as Resource[];
