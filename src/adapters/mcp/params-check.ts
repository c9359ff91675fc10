import { Response } from 'express';
import { InitializeRequestSchema } from '@modelcontextprotocol/core';
import { JSONRPCMessage } from '@modelcontextprotocol/server';
import { FieldError, MAX_FIELD_ERRORS } from '../../domain/errors';
import { findBodyProblem, findJsonProblem } from '../../domain/json-value';
import { RPC, sendRpcError } from './json-rpc';

/**
 * Answers -32602 for a message whose params hold text PostgreSQL cannot store
 * (findBodyProblem, the same walk every REST body gets), or that the SDK
 * server would refuse in a worse way: for initialize its schema failure
 * becomes -32603 (an internal error, for the client's mistake), and for
 * tools/call its message reads "MCP error -32602: MCP error -32602: ..." once
 * a client wraps it. The SDK answers both over HTTP 200, and so does this; a
 * notification, which gets no answer, is refused with HTTP 400 and id null.
 * Returns true when it answered.
 */
export function refuseInvalidParams(messages: readonly JSONRPCMessage[], res: Response): boolean {
  for (const message of messages) {
    const { id, method, params } = message as { id?: string | number; method?: unknown; params?: unknown };
    const unstorable = params === undefined ? null : findBodyProblem(params, '');
    if (unstorable !== null && id === undefined) {
      sendRpcError(res, 400, null, RPC.INVALID_PARAMS, `Invalid ${String(method)} params: ${unstorable.field}: ${unstorable.message}`, [
        unstorable,
      ]);
      return true;
    }
    if (id === undefined) continue; // a notification gets no answer, an error included
    const problems =
      unstorable !== null
        ? [unstorable]
        : method === 'initialize'
          ? initializeProblems(message)
          : method === 'tools/call'
            ? toolCallProblems(params)
            : [];
    if (problems.length === 0) continue;
    const summary = problems.map((p) => `${p.field}: ${p.message}`).join('; ');
    sendRpcError(res, 200, id, RPC.INVALID_PARAMS, `Invalid ${String(method)} params: ${summary}`, problems);
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

function initializeProblems(message: JSONRPCMessage): FieldError[] {
  const tooLarge = findJsonProblem((message as { params?: unknown }).params, 'params', INITIALIZE_CHECKS);
  if (tooLarge) return [tooLarge];
  const parsed = InitializeRequestSchema.safeParse(message);
  if (parsed.success) return [];
  return parsed.error.issues.slice(0, MAX_FIELD_ERRORS).map((issue) => ({ field: issue.path.join('.'), message: issue.message }));
}

function toolCallProblems(params: unknown): FieldError[] {
  const problem = toolCallShapeProblem(params);
  return problem === null ? [] : [problem];
}

/**
 * Why tools/call params name no tool or carry arguments that are not an
 * object; null when they are fine. Text in them was checked before, with the
 * rest of the params (refuseInvalidParams), so the tool gate, which runs
 * after, needs only this to read the call.
 */
export function toolCallShapeProblem(params: unknown): FieldError | null {
  const { name, arguments: args } = (params ?? {}) as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || name === '') return { field: 'name', message: 'must be the name of a tool' };
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    return { field: 'arguments', message: 'must be an object' };
  return null;
}
