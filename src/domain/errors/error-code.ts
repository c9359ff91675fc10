/**
 * Every code a DomainError may carry. The HTTP and JSON-RPC error maps are
 * tables keyed by this union, so a new code fails the typecheck until both
 * say how to answer it, and their tests iterate this list.
 */
export const ERROR_CODES = [
  'VALIDATION.FAILED',
  'HEADER_FIELD.INVALID',
  'ACCESS_TOKEN.INVALID',
  'API_KEY.INVALID',
  'ACCESS.FORBIDDEN',
  'SCOPE.INSUFFICIENT',
  'RESOURCE.NOT_FOUND',
  'TOOL.UNKNOWN',
  'MCP_RESOURCE.UNKNOWN',
  'MCP_REFERENCE.UNKNOWN',
  'UPSTREAM.FAILED',
  'MCP_SUBSCRIPTION.LIMIT',
  'MCP_CONNECTION.REQUIRED',
  'APPROVAL.REQUIRED',
  'STATE.CONFLICT',
  'DATABASE.UNAVAILABLE',
  'SIGNATURE.INVALID',
  'SIGNING_KEYS.UNAVAILABLE',
  'RATE_LIMIT.EXCEEDED',
  'QUOTA.EXHAUSTED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
