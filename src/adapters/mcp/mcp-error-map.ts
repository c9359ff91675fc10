import { ProtocolError } from '@modelcontextprotocol/server';
import { DomainError } from '../../domain/errors';
import { RPC } from './json-rpc';
import { RpcError } from './rpc-error';
import { INTERNAL, RPC_ERRORS, RpcAnswer } from './rpc-errors';

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
  return new RpcError(RPC.INTERNAL_ERROR, 'Internal error');
}

/**
 * toMcpError for a 2026-07-28 request: that revision answers an unknown
 * resource -32602 (Invalid params) and forbids -32002, which 2025 answers, so
 * keygate's own and any an upstream relayed become -32602, message and data
 * (the URI) kept.
 */
export function toModernMcpError(error: unknown, log: (error: unknown) => void): RpcError {
  const answer = toMcpError(error, log);
  return answer.code === RPC.RESOURCE_NOT_FOUND ? new RpcError(RPC.INVALID_PARAMS, answer.message, answer.data) : answer;
}
