import { Response } from 'express';
import { clipMessage } from '../../domain/errors';
import { boundData, MAX_ERROR_BODY_BYTES, withinBudget } from '../edge/error-limits';

/** JSON-RPC error codes keygate sends: at the HTTP edge, before the SDK server sees a message, and from its handlers. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** Transport-level refusals (origin, media type, method), as the SDK's transport answers them. */
  SERVER_ERROR: -32000,
  /** MCP's "resource not found" (resources/read). */
  RESOURCE_NOT_FOUND: -32002,
  /** MCP 2025-11-25's URLElicitationRequiredError: the client must have its user open a URL first (data.elicitations). */
  URL_ELICITATION_REQUIRED: -32042,
  /** Not defined by JSON-RPC or MCP: a tool call the key's scopes do not allow. */
  INSUFFICIENT_SCOPE: -32003,
} as const;

export type RpcId = string | number | null;

export interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/** Room left in the error budget for the envelope: jsonrpc and an id of at most 64 characters, escaped. */
const ENVELOPE_BYTES = 1024;

/** Every JSON-RPC error of ours, whether sent here or by the SDK, is cut to the error bounds by this. */
export function boundRpcError(code: number, message: string, data?: unknown): RpcErrorBody {
  const error: RpcErrorBody = { code, message: clipMessage(message) };
  if (data === undefined) return error;
  return withinBudget({ ...error, data: boundData(data) }, 'data', MAX_ERROR_BODY_BYTES - ENVELOPE_BYTES);
}

export function sendRpcError(res: Response, status: number, id: RpcId, code: number, message: string, data?: unknown): void {
  res
    .status(status)
    .type('application/json')
    .send(JSON.stringify({ jsonrpc: '2.0', id, error: boundRpcError(code, message, data) }));
}
