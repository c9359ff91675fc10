import { ErrorCode, ErrorWithCode, FieldError } from '../../domain/errors';
import { insufficientScopeChallenge, invalidTokenChallenge } from './bearer-challenge';
import { rateLimitHeaders } from './rate-limit-headers';

/** How the HTTP edge answers one error code: a problem with this status, `type` slug and title, and the error's message as detail. */
export interface HttpAnswer<E> {
  status: number;
  slug: string;
  title: string;
  // Methods, not function properties: toProblem reads an entry by the error's own code, so the entry always fits the error.
  headers?(error: E): Record<string, string>;
  errors?(error: E): FieldError[];
}

/** Keyed by every ErrorCode: a code without an answer here fails the typecheck. */
export const HTTP_ERRORS: { readonly [C in ErrorCode]: HttpAnswer<ErrorWithCode<C>> } = {
  'VALIDATION.FAILED': { status: 400, slug: 'validation-failed', title: 'Invalid request', errors: (e) => e.errors },
  'HEADER_FIELD.INVALID': { status: 400, slug: 'validation-failed', title: 'Invalid request', errors: (e) => e.errors },
  'ACCESS_TOKEN.INVALID': {
    status: 401,
    slug: 'invalid-access-token',
    title: 'Unauthorized',
    headers: (e) => ({ 'WWW-Authenticate': invalidTokenChallenge(e.presented) }),
  },
  'API_KEY.INVALID': {
    status: 401,
    slug: 'invalid-api-key',
    title: 'Unauthorized',
    headers: (e) => ({ 'WWW-Authenticate': invalidTokenChallenge(e.presented) }),
  },
  'ACCESS.FORBIDDEN': { status: 403, slug: 'forbidden', title: 'Forbidden' },
  // Only tools/call raises these two, inside the MCP server (mcp-error-map answers them), so no route reaches them
  // today; over HTTP they would be the tool gate's challenge and a missing tool.
  'SCOPE.INSUFFICIENT': {
    status: 403,
    slug: 'insufficient-scope',
    title: 'Forbidden',
    headers: (e) => ({ 'WWW-Authenticate': insufficientScopeChallenge(e.scopes) }),
  },
  'TOOL.UNKNOWN': { status: 404, slug: 'unknown-tool', title: 'Not Found' },
  // /mcp's resources, prompts and completion only (mcp-error-map answers them); over HTTP they would be these.
  'MCP_RESOURCE.UNKNOWN': { status: 404, slug: 'unknown-resource', title: 'Not Found' },
  'MCP_REFERENCE.UNKNOWN': { status: 404, slug: 'unknown-reference', title: 'Not Found' },
  'UPSTREAM.FAILED': { status: 502, slug: 'upstream-failed', title: 'Bad Gateway' },
  // resources/subscribe only (mcp-error-map answers it); over HTTP the session's state refuses it.
  'MCP_SUBSCRIPTION.LIMIT': { status: 409, slug: 'subscription-limit', title: 'Conflict' },
  // tools/call only (mcp-error-map answers it); over HTTP the caller would be told to connect first.
  'MCP_CONNECTION.REQUIRED': { status: 409, slug: 'connection-required', title: 'Conflict' },
  // tools/call only (mcp-error-map answers it); over HTTP the caller would be told to get the call approved first.
  'APPROVAL.REQUIRED': { status: 409, slug: 'approval-required', title: 'Conflict' },
  'RESOURCE.NOT_FOUND': { status: 404, slug: 'not-found', title: 'Not Found' },
  'STATE.CONFLICT': { status: 409, slug: 'conflict', title: 'Conflict' },
  // An outage is brief (the pool reconnects by itself), so clients are told to come back soon.
  'DATABASE.UNAVAILABLE': {
    status: 503,
    slug: 'database-unavailable',
    title: 'Service Unavailable',
    headers: () => ({ 'Retry-After': '1' }),
  },
  // A signature is not a bearer token, so no WWW-Authenticate challenge: the scanner knows how to sign.
  'SIGNATURE.INVALID': { status: 401, slug: 'invalid-signature', title: 'Unauthorized' },
  'SIGNING_KEYS.UNAVAILABLE': {
    status: 503,
    slug: 'signing-keys-unavailable',
    title: 'Service Unavailable',
    headers: (e) => ({ 'Retry-After': String(e.retryAfterSeconds) }),
  },
  // /mcp only, before the SDK server runs: the RateLimit fields say the window is spent and when it ends.
  'RATE_LIMIT.EXCEEDED': {
    status: 429,
    slug: 'rate-limited',
    title: 'Too Many Requests',
    headers: (e) => ({
      'Retry-After': String(e.retryAfterSeconds),
      ...rateLimitHeaders({ limit: e.limit, windowSeconds: e.windowSeconds, remaining: 0, resetSeconds: e.retryAfterSeconds }),
    }),
  },
  // No Retry-After: without a refill no wait helps, and the key's owner can see the refill in the key list.
  'QUOTA.EXHAUSTED': { status: 429, slug: 'quota-exhausted', title: 'Too Many Requests' },
};
