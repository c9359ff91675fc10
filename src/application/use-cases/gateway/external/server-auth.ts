import { clip } from '../../../../domain/errors';
import { isObject } from '../built-in/tool-command';
import { FIELD_NAME, SECRET_TEXT } from './header-fields';

/** How keygate authenticates to an upstream MCP server: the record's `auth` field. */
export type ServerAuth =
  | { type: 'static' }
  | { type: 'oauth'; client_id?: string; client_secret?: string; scopes?: string[] }
  | { type: 'token_exchange'; token_endpoint: string; audience: string; client_id: string; client_secret?: string }
  | { type: 'user_secret'; header: string; prefix?: string };

export type AuthType = ServerAuth['type'];
export const AUTH_TYPES: readonly AuthType[] = ['static', 'oauth', 'token_exchange', 'user_secret'];
/** The default: the record's own headers, shared by every caller, as before `auth` existed. */
export const STATIC_AUTH: ServerAuth = { type: 'static' };

const FIELDS: Record<AuthType, { required: readonly string[]; optional: readonly string[] }> = {
  static: { required: [], optional: [] },
  oauth: { required: [], optional: ['client_id', 'client_secret', 'scopes'] },
  token_exchange: { required: ['token_endpoint', 'audience', 'client_id'], optional: ['client_secret'] },
  user_secret: { required: ['header'], optional: ['prefix'] },
};
const MAX_TEXT = 512;
const MAX_SECRET = 4096;
const MAX_PREFIX = 64;
const MAX_SCOPES = 64;
// RFC 6749 §3.3: a scope token is visible ASCII but the space, `"` and `\`.
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

/** The record's auth, `static` when it has none. */
export function authOf(data: Record<string, unknown>): ServerAuth {
  return isObject(data.auth) ? (data.auth as ServerAuth) : STATIC_AUTH;
}

/**
 * The problems of an `auth` field, each naming its field and never quoting a
 * secret. URLs follow the record URL's rule (http or https), https only in
 * production, as for every URL keygate calls.
 */
export function authProblems(auth: unknown, production: boolean, add: (field: string, message: string) => void): void {
  if (!isObject(auth) || typeof auth.type !== 'string' || !(AUTH_TYPES as string[]).includes(auth.type)) {
    add('auth', `must be an object whose type is one of ${AUTH_TYPES.join(', ')}`);
    return;
  }
  const { required, optional } = FIELDS[auth.type as AuthType];
  for (const key of Object.keys(auth)) {
    if (key !== 'type' && !required.includes(key) && !optional.includes(key))
      add(`auth.${key}`, `is not a field of ${auth.type} auth (${['type', ...required, ...optional].join(', ')})`);
  }
  for (const key of required) if (auth[key] === undefined) add(`auth.${key}`, `is required for ${auth.type} auth`);
  const text = (key: string, max: number) => {
    const value = auth[key];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0 || value.length > max || !SECRET_TEXT.test(value)))
      add(`auth.${key}`, `must be a string of 1 to ${max} characters without line breaks, NUL or other control characters`);
  };
  text('client_id', MAX_TEXT);
  text('audience', MAX_TEXT);
  // Never quoted: it is a secret.
  text('client_secret', MAX_SECRET);
  if (auth.client_secret !== undefined && auth.type === 'oauth' && auth.client_id === undefined)
    add('auth.client_secret', 'needs client_id: a secret belongs to a client');
  if (auth.token_endpoint !== undefined && !isWebUrl(auth.token_endpoint, production))
    add('auth.token_endpoint', `must be an ${production ? 'https' : 'http or https'} URL`);
  if (auth.scopes !== undefined) {
    if (
      !Array.isArray(auth.scopes) ||
      auth.scopes.length > MAX_SCOPES ||
      !auth.scopes.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s))
    )
      add('auth.scopes', `must be an array of at most ${MAX_SCOPES} OAuth scope tokens (visible ASCII but " and \\)`);
  }
  if (auth.header !== undefined && (typeof auth.header !== 'string' || !FIELD_NAME.test(auth.header) || auth.header.length > 128))
    add(
      'auth.header',
      `must be an HTTP header name (a token: letters, digits and !#$%&'*+-.^_\`|~): ${JSON.stringify(clip(String(auth.header), 64))}`,
    );
  if (
    auth.prefix !== undefined &&
    (typeof auth.prefix !== 'string' || auth.prefix.length > MAX_PREFIX || !/^[\x20-\x7e]*$/.test(auth.prefix))
  )
    add('auth.prefix', `must be at most ${MAX_PREFIX} visible ASCII characters or spaces`);
}

/** The auth as shown: a client secret masked like a header value. */
export function maskedAuth(auth: unknown, mask: string): unknown {
  if (!isObject(auth) || auth.client_secret === undefined) return auth;
  return { ...auth, client_secret: mask };
}

/**
 * The auth an update stores. A masked client secret sent back keeps the stored
 * one while it still goes where it went: the same auth type, and the same
 * token endpoint (token_exchange) or the same record origin (oauth, whose
 * authorization server is found from the record's url). Otherwise it is dropped.
 */
export function mergedAuth(stored: unknown, update: unknown, mask: string, urlMoved: boolean): unknown {
  const storedSecret = isObject(stored) && typeof stored.client_secret === 'string' ? stored.client_secret : undefined;
  const sameDestination = (next: Record<string, unknown>) =>
    isObject(stored) &&
    stored.type === next.type &&
    (next.type === 'oauth'
      ? !urlMoved
      : originOf(stored.token_endpoint) !== null && originOf(stored.token_endpoint) === originOf(next.token_endpoint));
  if (update === undefined) {
    if (isObject(stored) && stored.type === 'oauth' && urlMoved && storedSecret !== undefined) {
      const { client_secret: _dropped, ...rest } = stored;
      return rest;
    }
    return stored;
  }
  if (!isObject(update) || update.client_secret !== mask) return update;
  const { client_secret: _masked, ...rest } = update;
  return storedSecret !== undefined && sameDestination(update) ? { ...rest, client_secret: storedSecret } : rest;
}

function isWebUrl(value: unknown, production: boolean): boolean {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'https:' || (!production && protocol === 'http:');
}

function originOf(value: unknown): string | null {
  return typeof value === 'string' && URL.canParse(value) ? new URL(value).origin : null;
}
