import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ValidationError } from '../../domain/errors';
import { InsufficientScopeError } from '../../domain/errors/insufficient-scope.error';
import { UnknownToolError } from '../../domain/errors/unknown-tool.error';
import { RPC } from './json-rpc';

/**
 * A JSON-RPC error as the SDK server puts it on the wire: it sends an error's
 * code, message and data. An McpError would do, but its message gains an
 * "MCP error <code>: " prefix, which clients then print twice.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * The one place that turns errors inside MCP handlers into JSON-RPC errors.
 * Anything unexpected is logged and answered -32603 without its message,
 * which could carry internals.
 */
export function toMcpError(error: unknown, log: (error: unknown) => void): RpcError | McpError {
  if (error instanceof RpcError || error instanceof McpError) return error;
  if (error instanceof ValidationError || error instanceof UnknownToolError) {
    return new RpcError(ErrorCode.InvalidParams, error.message);
  }
  if (error instanceof InsufficientScopeError) {
    return new RpcError(RPC.INSUFFICIENT_SCOPE, error.message, { required_scopes: error.scope.split(' ') });
  }
  log(error);
  return new RpcError(ErrorCode.InternalError, 'Internal error');
}
