import { FieldError, InvalidHeaderFieldError, ValidationError } from '../../../../domain/errors';
import { Scope } from '../../../../domain/scope';
import { ResourcePolicy } from '../built-in/resource-policy';
import { isObject } from '../built-in/tool-command';
import { headerProblems } from './header-fields';
import { authProblems, maskedAuth, mergedAuth } from './server-auth';
import { checkScopeMap } from './scope-map-check';
import { RuleCompiler } from '../../../ports/rule-compiler.port';
import { checkToolRules } from '../../tool-rules/tool-rules-check';

export const SERVER_NAME = /^[a-z0-9-]{1,32}$/;
const FIELDS = ['name', 'url', 'headers', 'auth', 'tool_scopes', 'resource_scopes', 'prompt_scopes', 'description'];

/** What checks a record's `tool_rules`; without it (a policy built for tests), the field is refused like any unknown one. */
export interface ToolRulesCheck {
  compiler: RuleCompiler;
  /** MCP_UPSTREAM_MAX_TOOLS: a record holds rules for at most as many tools as one listing may name. */
  maxTools: number;
}
/** What get and list show instead of a header value: header values are secrets. */
export const MASK = '********';

/**
 * An mcp_servers record registers an upstream MCP server: `name` (its tool
 * namespace), `url` (Streamable HTTP), optional `headers` sent with every
 * request, optional `tool_scopes` (upstream tool name → scopes needed),
 * optional `resource_scopes` (upstream URI or URI template → scopes) and
 * `prompt_scopes` (upstream prompt name → scopes), checked in scope-map-check.ts,
 * and optional `auth` (server-auth.ts: static, oauth, token_exchange or
 * user_secret), whose client_secret is a secret like a header value, and
 * optional `tool_rules` (upstream tool name → ordered rules, tool-rules-check.ts).
 * One user holds at most `maxServers` of them (MAX_MCP_SERVERS_PER_USER).
 * `production`: URLs keygate calls besides the record's own must be https.
 */
export const mcpServerPolicy = (maxServers: number, production = false, rules?: ToolRulesCheck): ResourcePolicy => ({
  check(data) {
    const errors: FieldError[] = [];
    const add = (field: string, message: string) => errors.push({ field: `data.${field}`, message });
    const fields = rules ? [...FIELDS, 'tool_rules'] : FIELDS;
    for (const key of Object.keys(data)) if (!fields.includes(key)) add(key, `is not a field of an MCP server (${fields.join(', ')})`);
    if (typeof data.name !== 'string' || !SERVER_NAME.test(data.name)) add('name', 'is required: 1 to 32 of a-z, 0-9 and -');
    if (!isHttpUrl(data.url)) add('url', 'is required: an http or https URL of a Streamable HTTP MCP endpoint');
    if (data.headers !== undefined && !(isObject(data.headers) && Object.values(data.headers).every((v) => typeof v === 'string'))) {
      add('headers', 'must be an object of header names to string values');
    } else if (data.headers !== undefined) {
      const problems: FieldError[] = [];
      headerProblems(data.headers as Record<string, string>, (field, message) => problems.push({ field: `data.${field}`, message }));
      if (problems.length > 0) throw new InvalidHeaderFieldError(problems);
    }
    if (data.auth !== undefined) authProblems(data.auth, production, add);
    if (data.description !== undefined && typeof data.description !== 'string') add('description', 'must be a string');
    if (data.tool_scopes !== undefined) {
      if (!isObject(data.tool_scopes)) add('tool_scopes', 'must map tool names to arrays of scopes');
      else
        for (const [tool, scopes] of Object.entries(data.tool_scopes)) {
          if (!Array.isArray(scopes)) add(`tool_scopes.${tool}`, 'must be an array of scopes');
          else scopes.forEach((s, i) => Scope.tryParse(s) ?? add(`tool_scopes.${tool}[${i}]`, Scope.problemWith(s)));
        }
    }
    if (data.resource_scopes !== undefined) checkScopeMap('resource_scopes', data.resource_scopes, add);
    if (data.prompt_scopes !== undefined) checkScopeMap('prompt_scopes', data.prompt_scopes, add);
    if (rules && data.tool_rules !== undefined) checkToolRules('tool_rules', data.tool_rules, rules.compiler, rules.maxTools, add);
    if (errors.length > 0) throw new ValidationError(errors);
    return data;
  },
  mask(record) {
    const headers = record.data.headers as Record<string, string> | undefined;
    const shown = record.data.auth === undefined ? record.data : { ...record.data, auth: maskedAuth(record.data.auth, MASK) };
    if (headers === undefined) return shown;
    return { ...shown, headers: Object.fromEntries(Object.keys(headers).map((name) => [name, MASK])) };
  },
  merge(stored, update) {
    const merged = { ...stored, ...update };
    // Secrets meant for one origin (scheme, host, port) never follow the record to another one.
    const moved = !sameOrigin(stored.url, merged.url);
    const kept = isObject(stored.headers) && !moved ? stored.headers : {};
    if (update.headers === undefined) {
      if (moved) delete merged.headers;
    } else if (isObject(update.headers)) {
      // A client that read masked headers and sends them back keeps the stored values, where they may go.
      merged.headers = Object.fromEntries(
        Object.entries(update.headers).flatMap(([name, value]) =>
          value !== MASK ? [[name, value]] : Object.hasOwn(kept, name) ? [[name, kept[name]]] : [],
        ),
      );
    }
    const auth = mergedAuth(stored.auth, update.auth, MASK, moved);
    if (auth === undefined) delete merged.auth;
    else merged.auth = auth;
    return merged;
  },
  limit: {
    max: maxServers,
    refusal: `You already have ${maxServers} MCP servers, the most one user may register (MAX_MCP_SERVERS_PER_USER); delete one to add another`,
  },
});

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function sameOrigin(a: unknown, b: unknown): boolean {
  const origin = (value: unknown) => (isHttpUrl(value) ? new URL(value as string).origin : null);
  return origin(a) !== null && origin(a) === origin(b);
}
