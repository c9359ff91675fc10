import { Response } from 'express';
import { InitializeRequestSchema, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RPC, sendRpcError } from './json-rpc';

/**
 * Answers -32602 for a request whose params the SDK server would refuse in a
 * worse way: for initialize its schema failure becomes -32603 (an internal
 * error, for the client's mistake), and for tools/call its message reads
 * "MCP error -32602: MCP error -32602: ..." once a client wraps it. The SDK
 * answers both over HTTP 200, and so does this. Returns true when it answered.
 */
export function refuseInvalidParams(messages: readonly JSONRPCMessage[], res: Response): boolean {
  for (const message of messages) {
    const { id, method, params } = message as { id?: string | number; method?: unknown; params?: unknown };
    if (id === undefined) continue; // a notification gets no answer, an error included
    const problem = method === 'initialize' ? initializeProblem(message) : method === 'tools/call' ? toolCallProblem(params) : null;
    if (problem === null) continue;
    sendRpcError(res, 200, id, RPC.INVALID_PARAMS, `Invalid ${method} params: ${problem}`);
    return true;
  }
  return false;
}

function initializeProblem(message: JSONRPCMessage): string | null {
  const parsed = InitializeRequestSchema.safeParse(message);
  if (parsed.success) return null;
  return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
}

/** Why tools/call params name no tool or carry arguments that are not an object; null when they are fine. */
export function toolCallProblem(params: unknown): string | null {
  const { name, arguments: args } = (params ?? {}) as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || name === '') return 'name must be the name of a tool';
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return 'arguments must be an object';
  return null;
}
