import { randomUUID } from 'node:crypto';
import { ApprovalRequiredError, ConnectionRequiredError, ErrorCode, ErrorWithCode } from '../../domain/errors';
import { RPC } from './json-rpc';

/**
 * For codes no MCP handler should meet: the error is then a bug or a fault,
 * and its message may carry internals, so it is logged and answered -32603
 * "Internal error".
 */
export const INTERNAL = 'internal';

/** How an MCP handler answers one error code: a JSON-RPC error with the error's message, or INTERNAL. */
export type RpcAnswer<E> =
  // A method, not a function property: toMcpError reads an entry by the error's own code, so the entry always fits the error.
  { code: number; data?(error: E): unknown } | typeof INTERNAL;

/** Keyed by every ErrorCode: a code without an answer here fails the typecheck. */
export const RPC_ERRORS: { readonly [C in ErrorCode]: RpcAnswer<ErrorWithCode<C>> } = {
  // A validation error lists its fields in data, as a problem does in `errors`.
  'VALIDATION.FAILED': { code: RPC.INVALID_PARAMS, data: (e) => e.errors },
  // Raised inside a tool call (mcp_servers headers) but, unlike a tool's other field errors, invalid params.
  'HEADER_FIELD.INVALID': { code: RPC.INVALID_PARAMS, data: (e) => e.errors },
  // The tool name is a param of tools/call.
  'TOOL.UNKNOWN': { code: RPC.INVALID_PARAMS },
  // resources/read of a URI the caller cannot read: MCP's own code, with the URI as the spec's example shows it.
  'MCP_RESOURCE.UNKNOWN': { code: RPC.RESOURCE_NOT_FOUND, data: (e) => ({ uri: e.uri }) },
  // The prompt name (prompts/get) or the ref (completion/complete) is a param.
  'MCP_REFERENCE.UNKNOWN': { code: RPC.INVALID_PARAMS },
  // An upstream's failure is neither the caller's mistake nor ours: an implementation-defined server error.
  'UPSTREAM.FAILED': { code: RPC.SERVER_ERROR },
  // Not the params' fault but the session's state: a server error, with the bound in data so a client can act on it.
  'MCP_SUBSCRIPTION.LIMIT': { code: RPC.SERVER_ERROR, data: (e) => ({ max_subscriptions: e.max }) },
  // MCP 2025-11-25's URL-mode elicitation as an error: the client has its user open the connect page, then calls again.
  'MCP_CONNECTION.REQUIRED': { code: RPC.URL_ELICITATION_REQUIRED, data: (e) => ({ elicitations: [urlElicitation(e)] }) },
  // The same form for a call a require_approval rule holds: the client has its user open the approval page, then calls again.
  'APPROVAL.REQUIRED': { code: RPC.URL_ELICITATION_REQUIRED, data: (e) => ({ elicitations: [urlElicitation(e)] }) },
  // The tool gate answers these first (HTTP 403); here only if a tool's scopes changed between the gate and the call.
  'SCOPE.INSUFFICIENT': { code: RPC.INSUFFICIENT_SCOPE, data: (e) => ({ required_scopes: e.scopes }) },
  // /mcp checks the key before any handler runs, and takes no user tokens.
  'API_KEY.INVALID': INTERNAL,
  'ACCESS_TOKEN.INVALID': INTERNAL,
  // Raised only by the REST routes of agent roles, modes and sessions.
  'ACCESS.FORBIDDEN': INTERNAL,
  // CallTool turns these into tool results with isError, which the client's model reads.
  'RESOURCE.NOT_FOUND': INTERNAL,
  'STATE.CONFLICT': INTERNAL,
  // Inside a handler the answer is already HTTP 200, so there is no 503 to give; logged like any fault.
  'DATABASE.UNAVAILABLE': INTERNAL,
  // Raised only by the secret scanning route, which is not behind /mcp.
  'SIGNATURE.INVALID': INTERNAL,
  'SIGNING_KEYS.UNAVAILABLE': INTERNAL,
  // The /mcp edge decides both before the SDK server runs, and answers them with a 429 problem.
  'RATE_LIMIT.EXCEEDED': INTERNAL,
  'QUOTA.EXHAUSTED': INTERNAL,
};

/**
 * The URL-mode elicitation that asks a 2025-11-25 client's user to connect:
 * the console's connect page, and a fresh id (the spec's elicitationId; keygate
 * sends no elicitation/complete notification, so nothing else reads it).
 */
export function urlElicitation(error: ConnectionRequiredError | ApprovalRequiredError): {
  mode: 'url';
  elicitationId: string;
  url: string;
  message: string;
} {
  if (error instanceof ApprovalRequiredError)
    return { mode: 'url', elicitationId: error.approvalId, url: error.approvalUrl, message: approvalMessage(error) };
  return { mode: 'url', elicitationId: randomUUID(), url: error.connectUrl, message: connectMessage(error) };
}

/** What the client shows its user beside the approval page's URL. */
export function approvalMessage(error: ApprovalRequiredError): string {
  return `This call needs approval (${error.reason}): open the page to ask for it, then make the same call again`;
}

/** What the client shows its user beside the connect page's URL. */
export function connectMessage(error: ConnectionRequiredError): string {
  return `Connect your account to the MCP server ${error.server} to use its tools`;
}
