import { SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import { Response } from 'express';
import { boundRpcError, RpcId } from '../json-rpc';
import { rpcResult } from '../rpc-answer';
import { EraRejection } from './era-gate';

/**
 * HTTP statuses of the errors 2026-07-28 answers before any handler runs:
 * header mismatch, missing capability, unsupported version and a bad `_meta`
 * are 400, a method the server does not implement is 404. A handler's own
 * errors stay on 200, as on 2025.
 */
const EDGE_STATUS: Readonly<Record<number, number>> = {
  [-32700]: 400,
  [-32600]: 400,
  [-32601]: 404,
  [-32602]: 400,
  [-32020]: 400,
  [-32021]: 400,
  [-32022]: 400,
};

/** Results that 2026-07-28 requires to carry ttlMs and cacheScope when complete. */
const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/** An error keygate answers before any handler runs, with the status the spec gives its code (400 when it gives none). */
export function modernError(id: RpcId, code: number, message: string, data?: unknown): EraRejection {
  return { httpStatus: EDGE_STATUS[code] ?? 400, id, code, message, ...(data !== undefined && { data }) };
}

/** The bytes of a 2026 error: the request's id echoed (the spec's MUST), the error cut to keygate's bounds. */
export function modernErrorBody(error: EraRejection): string {
  return JSON.stringify({ jsonrpc: '2.0', id: error.id, error: boundRpcError(error.code, error.message, error.data) });
}

export function sendModernError(res: Response, error: EraRejection): void {
  res.status(error.httpStatus).type('application/json').send(modernErrorBody(error));
}

export interface CompleteOptions {
  /** How long a client may reuse a list or read result; an upstream's own shorter ttlMs wins. */
  ttlMs?: number;
  serverInfo?: { name: string; version: string };
}

/**
 * A complete 2026 result, stamped the way the SDK's encoder stamps one so the
 * fast paths' bytes match the SDK leg's: resultType, then ttlMs and
 * cacheScope on list and read results, then serverInfo in _meta. The scope is
 * always private, whatever an upstream said: keygate filters lists by the
 * key's scopes and gates reads per key, so no shared cache may reuse them.
 */
export function completeResult(method: string, result: Record<string, unknown>, options: CompleteOptions = {}): Record<string, unknown> {
  const provided = result.resultType;
  // Only tools/call, prompts/get and resources/read may be input_required; this writer is for complete ones.
  if (provided !== undefined && provided !== 'complete') throw new Error(`completeResult got resultType ${String(provided)} for ${method}`);
  let stamped: Record<string, unknown> = provided === undefined ? { ...result, resultType: 'complete' } : { ...result };
  if (CACHEABLE_METHODS.has(method)) stamped = { ...stamped, ttlMs: ttlOf(stamped.ttlMs, options.ttlMs ?? 0), cacheScope: 'private' };
  return options.serverInfo ? withServerInfo(stamped, options.serverInfo) : stamped;
}

/** The bytes of a complete 2026 result message, keys in the SDK's order. */
export function modernResultBody(id: RpcId, method: string, result: Record<string, unknown>, options?: CompleteOptions): string {
  return rpcResult(id, completeResult(method, result, options));
}

function ttlOf(provided: unknown, ours: number): number {
  const valid = typeof provided === 'number' && Number.isSafeInteger(provided) && provided >= 0;
  return valid ? Math.min(provided, ours) : ours;
}

/** A serverInfo already in _meta is kept, as the SDK keeps a handler's own. */
export function withServerInfo(result: Record<string, unknown>, serverInfo: { name: string; version: string }): Record<string, unknown> {
  const meta = result._meta;
  if (meta === undefined) return { ...result, _meta: { [SERVER_INFO_META_KEY]: serverInfo } };
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return result;
  if ((meta as Record<string, unknown>)[SERVER_INFO_META_KEY] !== undefined) return result;
  return { ...result, _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } };
}
