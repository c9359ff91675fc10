import { CallToolResult, inputRequired, ProtocolError } from '@modelcontextprotocol/server';
import { ApprovalRequiredError, ConnectionRequiredError, DomainError } from '../../domain/errors';
import { toProblem } from '../edge/error-map';
import { EraRejection } from './era/era-gate';
import { RPC, RpcId } from './json-rpc';
import { RpcError } from './rpc-error';
import { approvalMessage, connectMessage, INTERNAL, RPC_ERRORS, RpcAnswer } from './rpc-errors';

/**
 * The one place that turns errors inside MCP handlers into JSON-RPC errors:
 * domain errors by their code (RPC_ERRORS), errors already in JSON-RPC form
 * as they are. Anything else is logged and answered -32603 without its
 * message, which could carry internals.
 */
export function toMcpError(error: unknown, log: (error: unknown) => void): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof ProtocolError) return new RpcError(error.code, error.message, error.data);
  if (error instanceof DomainError) {
    const answer: RpcAnswer<DomainError> = RPC_ERRORS[error.code];
    if (answer !== INTERNAL) return new RpcError(answer.code, error.message, answer.data?.(error));
  }
  log(error);
  const outage = outageOf(error);
  return outage
    ? new UnavailableRpcError(RPC.INTERNAL_ERROR, 'Internal error', outage)
    : new RpcError(RPC.INTERNAL_ERROR, 'Internal error');
}

/**
 * An outage as keygate answers it (PostgreSQL away: what the HTTP map answers
 * 503): the status, its headers (Retry-After) and words ("title: detail",
 * never the driver's). Plain data, so a parked call's holder can hand it to
 * the replica its client's retry reached.
 */
export interface Outage {
  status: number;
  headers: Record<string, string>;
  message: string;
}

/**
 * An outage met inside an MCP handler. A 2025 handler's answer is on HTTP 200
 * by then, so it stays -32603 like any fault; a 2026 one is -32000 with the
 * outage's words, and the 2026 edge, while its answer is not yet streaming,
 * answers 503 instead (modernUnavailable), whichever path met it.
 */
export class UnavailableRpcError extends RpcError {
  constructor(
    code: number,
    message: string,
    readonly outage: Outage,
  ) {
    super(code, message);
  }
}

/** The outage `error` stands for, raw or already mapped; undefined for anything else. */
export function outageOf(error: unknown): Outage | undefined {
  if (error instanceof UnavailableRpcError) return error.outage;
  if (!(error instanceof DomainError)) return undefined;
  const { problem, headers } = toProblem(error);
  return problem.status === 503 ? { status: problem.status, headers, message: `${problem.title}: ${problem.detail}` } : undefined;
}

/** Whether `error` means keygate cannot serve right now (an outage), raw or mapped by toMcpError. */
export function isUnavailable(error: unknown): boolean {
  return outageOf(error) !== undefined;
}

/** A 2026 answer to an outage: the HTTP map's status and headers (503, Retry-After), a JSON-RPC -32000 with the request's id. */
export interface ModernUnavailable {
  rejection: EraRejection;
  headers: Record<string, string>;
}

/**
 * What the 2026 leg answers for an outage met once the body was read (the
 * gates, a fast path, a listen, the SDK leg's factory or handler), as
 * server/discover always has: the outage's status and headers, its words as
 * a JSON-RPC -32000 that echoes the request's id. Undefined for anything
 * that is not an outage.
 */
export function modernUnavailable(error: unknown, id: RpcId): ModernUnavailable | undefined {
  const outage = outageOf(error);
  if (outage === undefined) return undefined;
  return { rejection: { httpStatus: outage.status, id, code: RPC.SERVER_ERROR, message: outage.message }, headers: outage.headers };
}

/**
 * toMcpError for a 2026-07-28 request: that revision answers an unknown
 * resource -32602 (Invalid params) and forbids -32002, which 2025 answers, so
 * keygate's own and any an upstream relayed become -32602, message and data
 * (the URI) kept. An outage is modernUnavailable's -32000, for an answer
 * already streaming (the edge answers 503 otherwise).
 */
export function toModernMcpError(error: unknown, log: (error: unknown) => void): RpcError {
  // tools/call asks with input_required (connectionAnswer); a content method's answer names the page.
  if (error instanceof ConnectionRequiredError) return connectionError(error, undefined, log);
  const answer = toMcpError(error, log);
  if (answer instanceof UnavailableRpcError) return new UnavailableRpcError(RPC.SERVER_ERROR, answer.outage.message, answer.outage);
  return answer.code === RPC.RESOURCE_NOT_FOUND ? new RpcError(RPC.INVALID_PARAMS, answer.message, answer.data) : answer;
}

/**
 * How a client can be asked to connect to a server before its call runs, by
 * what it declared: a 2025-11-25 client with URL elicitation (in its
 * session's initialize) gets the URL-elicitation-required error; a
 * 2026-07-28 client with it (in the request's envelope) an input_required
 * result whose requestState brings the same call back; any other a tool error
 * naming the page. `base` is the origin the client reached keygate at: an
 * elicitation's URL must be absolute, and the connect page is a path unless
 * MCP_RESOURCE_URL names keygate's public URL.
 */
export type ConnectPrompt =
  | { kind: 'tool-error' }
  | { kind: 'url-elicitation-error'; base: string }
  | { kind: 'input-required'; base: string; requestState: () => string };

export const CONNECT_BY_TOOL_ERROR: ConnectPrompt = { kind: 'tool-error' };

/** Whether declared client capabilities take URL-mode elicitation (`elicitation.url`, both revisions). */
export function takesUrlElicitation(capabilities: unknown): boolean {
  const elicitation = isObject(capabilities) ? capabilities.elicitation : undefined;
  return isObject(elicitation) && isObject(elicitation.url);
}

/**
 * The one place a ConnectionRequiredError, or an ApprovalRequiredError (a
 * call a require_approval rule holds), becomes what the client gets: a
 * result, or a JSON-RPC error thrown. Both ask the client's user to open a
 * console page, then make the same call again.
 */
export function connectionAnswer(
  error: ConnectionRequiredError | ApprovalRequiredError,
  prompt: ConnectPrompt,
  log: (error: unknown) => void,
): CallToolResult {
  const page = error instanceof ApprovalRequiredError ? error.approvalUrl : error.connectUrl;
  const url = prompt.kind === 'tool-error' ? null : absoluteUrl(page, prompt.base);
  if (prompt.kind === 'tool-error' || url === null) return { content: [{ type: 'text', text: error.message }], isError: true };
  const asked =
    error instanceof ApprovalRequiredError
      ? new ApprovalRequiredError(error.approvalId, url, error.reason)
      : new ConnectionRequiredError(error.server, url);
  if (prompt.kind === 'url-elicitation-error') throw toMcpError(asked, log);
  // 2026-07-28's URL mode has no elicitationId: the retry is told apart by its requestState.
  const request = inputRequired.elicitUrl({
    message: asked instanceof ApprovalRequiredError ? approvalMessage(asked) : connectMessage(asked),
    url,
  });
  return {
    resultType: 'input_required',
    inputRequests: { [asked instanceof ApprovalRequiredError ? 'approve' : 'connect']: request },
    requestState: prompt.requestState(),
  } as unknown as CallToolResult;
}

/**
 * A ConnectionRequiredError of a method other than tools/call (resources/read,
 * prompts/get, completion/complete), which has no tool result to carry it:
 * the URL-elicitation-required error for a 2025-11-25 session that declared
 * URL elicitation (`base`, as for tools/call), else a server error whose
 * message names the connect page.
 */
export function connectionError(error: ConnectionRequiredError, base: string | undefined, log: (error: unknown) => void): RpcError {
  const url = base === undefined ? null : absoluteUrl(error.connectUrl, base);
  if (url === null) return new RpcError(RPC.SERVER_ERROR, error.message);
  return toMcpError(new ConnectionRequiredError(error.server, url), log);
}

/** The connect page as an absolute http(s) URL, against the client's own origin when it is a path; null when there is none. */
function absoluteUrl(page: string, base: string): string | null {
  try {
    const url = new URL(page, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
