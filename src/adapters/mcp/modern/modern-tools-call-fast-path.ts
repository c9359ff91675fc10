import { Request, Response } from 'express';
import { modernResultBody } from '../era/modern-answer';
import { RpcId } from '../json-rpc';
import { serverInfoFor } from '../mcp-server.factory';
import { isUnavailable } from '../mcp-error-map';
import { MAX_RESULT_RECORD_BYTES } from '../record-view';
import { RpcError } from '../rpc-error';
import { ResponseFormat } from '../streamable-http';
import { ToolCallRunner } from '../tool-call-runner';
import { ModernCall } from './modern-server.factory';

/** What a plain 2026 call's params may hold; a retry's inputResponses or requestState goes to the SDK leg. */
const PARAMS_KEYS: ReadonlySet<string> = new Set(['name', 'arguments', '_meta']);
/** MCP 2026-07-28 has no -32002: the SDK's encoder answers a resource not found as -32602. */
const RESOURCE_NOT_FOUND = -32002;

/**
 * A 2026-07-28 tools/call of a built-in tool is one indexed read; the SDK v2
 * leg builds a Server, a transport and a web Request and Response around it.
 * A lone call of a built-in tool whose client takes JSON, already through the
 * era gate and keygate's gates (scope, quota), is run here by the same runner
 * as the SDK leg's handler (one audit event) and answered with the bytes that
 * leg answers: the result stamped by the same writer (resultType, serverInfo),
 * or the runner's error as the SDK's Protocol writes a thrown one.
 * Upstream tools, retries and anything else go to the SDK leg.
 */
export class ModernToolsCallFastPath {
  constructor(private readonly runner: ToolCallRunner) {}

  async tryServe(req: Request, res: Response, call: ModernCall, format: ResponseFormat): Promise<boolean> {
    if (call.method !== 'tools/call' || format !== 'json') return false;
    const { id, params } = req.body as { id?: unknown; params?: unknown };
    if (!(typeof id === 'string' || typeof id === 'number') || !isPlainCallParams(params)) return false;
    const target = call.calls.get(params.name);
    // undefined: the gate did not see it (the SDK leg says so); null: an unknown tool, answered here as there.
    if (target === undefined || (target !== null && target.kind !== 'built-in')) return false;
    let body: string;
    try {
      const result = await this.runner.run(
        call.principal,
        call.origin,
        call.calls,
        { name: params.name, arguments: params.arguments },
        MAX_RESULT_RECORD_BYTES,
      );
      body = modernResultBody(id, 'tools/call', result, { serverInfo: serverInfoFor(call.view) });
    } catch (error) {
      // An outage is the edge's to answer, 503 with the id, as the SDK leg's would be (mcp.controller.ts).
      if (isUnavailable(error)) throw error;
      body = thrownErrorBody(id, error as RpcError);
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
    return true;
  }
}

export function isPlainCallParams(params: unknown): params is { name: string; arguments?: Record<string, unknown> } {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
  for (const key in params) if (!PARAMS_KEYS.has(key)) return false;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  return typeof name === 'string' && (args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args)));
}

/** A handler's thrown error as the SDK v2's Protocol answers it on 2026-07-28: its code (-32002 as -32602), message and data. */
export function thrownErrorBody(id: RpcId, error: RpcError): string {
  const code = Number.isSafeInteger(error.code) ? error.code : -32603;
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: {
      code: code === RESOURCE_NOT_FOUND ? -32602 : code,
      message: error.message ?? 'Internal error',
      ...(error.data !== undefined && { data: error.data }),
    },
  });
}
