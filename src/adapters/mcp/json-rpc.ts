import { Response } from 'express';

/** JSON-RPC error codes used at the HTTP edge, before the SDK server sees a message. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  INVALID_PARAMS: -32602,
  /** Transport-level refusals (origin, media type, method), as the SDK's transport answers them. */
  SERVER_ERROR: -32000,
  /** Not defined by JSON-RPC or MCP: a tool call the key's scopes do not allow. */
  INSUFFICIENT_SCOPE: -32003,
} as const;

export type RpcId = string | number | null;

export function sendRpcError(
  res: Response,
  status: number,
  id: RpcId,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): void {
  res.status(status).type('application/json').send(
    JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data && { data }) } }),
  );
}
