import { Response } from 'express';
import { InitializeRequestSchema, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { FieldError, MAX_FIELD_ERRORS } from '../../domain/errors';
import { findJsonProblem } from '../../domain/json-value';
import { isResource } from '../../domain/scope';
import { textProblem } from '../../domain/text-field';
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
    const problems = method === 'initialize' ? initializeProblems(message) : method === 'tools/call' ? toolCallProblems(params) : [];
    if (problems.length === 0) continue;
    const summary = problems.map((p) => `${p.field}: ${p.message}`).join('; ');
    sendRpcError(res, 200, id, RPC.INVALID_PARAMS, `Invalid ${method} params: ${summary}`, problems);
    return true;
  }
  return false;
}

/**
 * zod builds an issue for every bad item: 500,000 bad icons took 1.4 s and
 * 600 MB of heap. A real initialize is a few dozen values, so arrays and
 * objects in its params are held to a size before the schema runs.
 */
const INITIALIZE_CHECKS = { maxEntries: 100 };
const STORABLE = { storableText: true };

function initializeProblems(message: JSONRPCMessage): FieldError[] {
  const tooLarge = findJsonProblem((message as { params?: unknown }).params, 'params', INITIALIZE_CHECKS);
  if (tooLarge) return [tooLarge];
  const parsed = InitializeRequestSchema.safeParse(message);
  if (parsed.success) return [];
  return parsed.error.issues.slice(0, MAX_FIELD_ERRORS).map((issue) => ({ field: issue.path.join('.'), message: issue.message }));
}

function toolCallProblems(params: unknown): FieldError[] {
  const problem = toolCallProblem(params);
  return problem === null ? [] : [problem];
}

/**
 * Why tools/call params name no tool, carry arguments that are not an object,
 * or give a built-in tool text it could not store; null when they are fine.
 * A name that could not be stored cannot be a registered tool, and looking it
 * up in PostgreSQL would fail.
 */
export function toolCallProblem(params: unknown): FieldError | null {
  const shape = toolCallShapeProblem(params);
  if (shape !== null) return shape;
  const { name, arguments: args } = params as { name: string; arguments?: Record<string, unknown> };
  // A built-in tool stores what it is given, and PostgreSQL cannot store NUL or unpaired surrogates:
  // refused here as the params they are, before anything runs. Upstream tools take what their server takes.
  if (args !== undefined && isResource(name)) return findJsonProblem(args, 'arguments', STORABLE);
  return null;
}

/**
 * The cheap half of toolCallProblem: a storable tool name and arguments that
 * are an object. The tool gate, which runs after this file's check, needs
 * only this to read the call, not a second walk of the arguments.
 */
export function toolCallShapeProblem(params: unknown): FieldError | null {
  const { name, arguments: args } = (params ?? {}) as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || name === '') return { field: 'name', message: 'must be the name of a tool' };
  const unstorable = textProblem(name);
  if (unstorable !== null) return { field: 'name', message: unstorable };
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return { field: 'arguments', message: 'must be an object' };
  return null;
}
