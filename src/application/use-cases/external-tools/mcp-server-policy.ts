import { FieldError, ValidationError } from '../../../domain/errors';
import { Scope } from '../../../domain/scope';
import { ResourcePolicy } from '../call-tool/resource-policy';
import { isObject } from '../call-tool/tool-command';

export const SERVER_NAME = /^[a-z0-9-]{1,32}$/;
const FIELDS = ['name', 'url', 'headers', 'tool_scopes', 'description'];
/** What get and list show instead of a header value: header values are secrets. */
export const MASK = '********';

/**
 * An mcp_servers record registers an upstream MCP server: `name` (its tool
 * namespace), `url` (Streamable HTTP), optional `headers` sent with every
 * request, optional `tool_scopes` (upstream tool name → scopes needed).
 */
export const MCP_SERVER_POLICY: ResourcePolicy = {
  check(data) {
    const errors: FieldError[] = [];
    const add = (field: string, message: string) => errors.push({ field: `data.${field}`, message });
    for (const key of Object.keys(data)) if (!FIELDS.includes(key)) add(key, `is not a field of an MCP server (${FIELDS.join(', ')})`);
    if (typeof data.name !== 'string' || !SERVER_NAME.test(data.name)) add('name', 'is required: 1 to 32 of a-z, 0-9 and -');
    if (!isHttpUrl(data.url)) add('url', 'is required: an http or https URL of a Streamable HTTP MCP endpoint');
    if (data.headers !== undefined && !(isObject(data.headers) && Object.values(data.headers).every((v) => typeof v === 'string'))) {
      add('headers', 'must be an object of header names to string values');
    }
    if (data.description !== undefined && typeof data.description !== 'string') add('description', 'must be a string');
    if (data.tool_scopes !== undefined) {
      if (!isObject(data.tool_scopes)) add('tool_scopes', 'must map tool names to arrays of scopes');
      else for (const [tool, scopes] of Object.entries(data.tool_scopes)) {
        if (!Array.isArray(scopes)) add(`tool_scopes.${tool}`, 'must be an array of scopes');
        else scopes.forEach((s, i) => Scope.tryParse(s) ?? add(`tool_scopes.${tool}[${i}]`, Scope.problemWith(s)));
      }
    }
    if (errors.length > 0) throw new ValidationError(errors);
    return data;
  },
  mask(record) {
    const headers = record.data.headers as Record<string, string> | undefined;
    if (headers === undefined) return record.data;
    return { ...record.data, headers: Object.fromEntries(Object.keys(headers).map((name) => [name, MASK])) };
  },
  merge(stored, update) {
    // A client that read masked headers and sends them back must not overwrite the secrets with the mask.
    const headers = isObject(update.headers) && isObject(stored.headers)
      ? Object.fromEntries(Object.entries(update.headers).map(([k, v]) => [k, v === MASK ? stored.headers![k as never] : v]))
      : update.headers;
    return { ...stored, ...update, ...(update.headers !== undefined && { headers }) };
  },
};

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
