import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ValidationError } from '../../domain/errors';
import { InsufficientScopeError } from '../../domain/errors/insufficient-scope.error';
import { UnknownToolError } from '../../domain/errors/unknown-tool.error';
import { RPC } from './json-rpc';

/**
 * The one place that turns errors inside MCP handlers into JSON-RPC errors.
 * Anything unexpected is logged and answered -32603 without its message,
 * which could carry internals.
 */
export function toMcpError(error: unknown, log: (error: unknown) => void): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof ValidationError || error instanceof UnknownToolError) {
    return new McpError(ErrorCode.InvalidParams, error.message);
  }
  if (error instanceof InsufficientScopeError) {
    return new McpError(RPC.INSUFFICIENT_SCOPE, error.message, { required_scopes: error.scope.split(' ') });
  }
  log(error);
  return new McpError(ErrorCode.InternalError, 'Internal error');
}
