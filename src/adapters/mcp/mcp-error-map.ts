import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { InsufficientScopeError, UnknownToolError, ValidationError } from '../../domain/errors';
import { boundRpcError, RPC } from './json-rpc';

/**
 * A JSON-RPC error as the SDK server puts it on the wire: it sends an error's
 * code, message and data. An McpError would do, but its message gains an
 * "MCP error <code>: " prefix, which clients then print twice.
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data?: unknown;

  /** Cut to the error bounds here, so that no handler can send a huge error through the SDK. */
  constructor(code: number, message: string, data?: unknown) {
    const bounded = boundRpcError(code, message, data);
    super(bounded.message);
    this.code = code;
    if (bounded.data !== undefined) this.data = bounded.data;
  }
}

/**
 * The one place that turns errors inside MCP handlers into JSON-RPC errors.
 * A validation error lists its fields in `data`, as a problem does in
 * `errors`. Anything unexpected is logged and answered -32603 without its
 * message, which could carry internals.
 */
export function toMcpError(error: unknown, log: (error: unknown) => void): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof McpError) return new RpcError(error.code, error.message, error.data);
  if (error instanceof ValidationError) return new RpcError(ErrorCode.InvalidParams, error.message, error.errors);
  if (error instanceof UnknownToolError) return new RpcError(ErrorCode.InvalidParams, error.message);
  if (error instanceof InsufficientScopeError) {
    return new RpcError(RPC.INSUFFICIENT_SCOPE, error.message, { required_scopes: error.scopes });
  }
  log(error);
  return new RpcError(ErrorCode.InternalError, 'Internal error');
}
