import { Request, Response } from 'express';
import { JSONRPCMessage, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { KeyPrincipal } from '../../application/use-cases/validate-key/validate-key.use-case';
import { AuditOrigin } from '../../domain/audit';
import { MAX_RESULT_RECORD_BYTES } from './record-view';
import { RpcError } from './rpc-error';
import { rpcFailure, rpcResult, writeRpcAnswer } from './rpc-answer';
import { ResponseFormat } from './streamable-http';
import { ToolCallParams, ToolCallRunner } from './tool-call-runner';
import { AllowedCalls } from './tool-gate';

const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_KEYS = new Set(['name', 'arguments']);

/**
 * A built-in tool call costs one indexed read; building an SDK server and
 * transport for it cost about as much CPU again. A lone tools/call of a
 * built-in tool, in plain params (no _meta, no task), is run here by the same
 * runner the SDK handler uses and answered with the bytes the SDK would send,
 * in JSON or SSE. Anything else (batches, notifications, an upstream tool,
 * an unknown protocol version) is left to the SDK server.
 */
export class ToolsCallFastPath {
  constructor(private readonly runner: ToolCallRunner) {}

  async tryServe(
    req: Request,
    res: Response,
    principal: KeyPrincipal,
    messages: JSONRPCMessage[],
    format: ResponseFormat,
    calls: AllowedCalls,
    origin: AuditOrigin,
  ): Promise<boolean> {
    if (Array.isArray(req.body) || messages.length !== 1) return false;
    const message = messages[0] as { method?: unknown; id?: unknown; params?: unknown };
    if (message.method !== 'tools/call' || !isPlainCall(message)) return false;
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) return false;
    const params = message.params as ToolCallParams;
    const target = calls.get(params.name);
    // undefined: the gate did not see it (the SDK path logs that); null: an unknown tool, answered here as there.
    if (target === undefined || (target !== null && target.kind !== 'built-in')) return false;
    const id = message.id as string | number;
    let answer: string;
    try {
      answer = rpcResult(id, await this.runner.run(principal, origin, calls, params, MAX_RESULT_RECORD_BYTES));
    } catch (error) {
      answer = rpcFailure(id, error as RpcError);
    }
    writeRpcAnswer(res, format, answer);
    return true;
  }
}

/**
 * A request the SDK would hand to its tools/call handler as it is: the four
 * message keys, an id, and params of a tool name and an arguments object only.
 */
function isPlainCall(message: Record<string, unknown>): boolean {
  if (!isPlainRequest(message)) return false;
  const params = message.params as Record<string, unknown>;
  for (const key in params) if (!PARAMS_KEYS.has(key)) return false;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  return typeof name === 'string' && (args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args)));
}

/** A JSON-RPC 2.0 request of the four message keys only, with a string or integer id and params an object. */
export function isPlainRequest(message: Record<string, unknown>): boolean {
  for (const key in message) if (!MESSAGE_KEYS.has(key)) return false;
  const { id, params } = message;
  if (message.jsonrpc !== '2.0' || !(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) return false;
  return typeof params === 'object' && params !== null && !Array.isArray(params);
}
