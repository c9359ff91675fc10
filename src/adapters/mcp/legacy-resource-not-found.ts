import { JSONRPCMessage, Server } from '@modelcontextprotocol/server';
import { RPC } from './json-rpc';

/**
 * The SDK v2 answers -32002 (resource not found) as -32602 in every revision,
 * as 2026-07-28 requires (SEP-2164). 2025 sessions are served exactly as
 * before, and their revision names -32002: the ids of the requests a 2025
 * handler answered so are kept per server, and the answer gets its code back
 * on the way out.
 */
const answeredNotFound = new WeakMap<Server, Set<string | number>>();

/** Called by a 2025 handler about to throw a -32002 for request `id`. */
export function keepResourceNotFound(server: Server, id: string | number): void {
  let ids = answeredNotFound.get(server);
  if (ids === undefined) answeredNotFound.set(server, (ids = new Set()));
  ids.add(id);
}

/** The message as the 2025 revision answers it: -32002 where the handler answered so. */
export function withLegacyResourceNotFound(server: Server, message: JSONRPCMessage): JSONRPCMessage {
  const error = (message as { error?: { code: number } }).error;
  const id = (message as { id?: string | number }).id;
  if (error?.code !== RPC.INVALID_PARAMS || id === undefined || answeredNotFound.get(server)?.delete(id) !== true) return message;
  return { ...message, error: { ...error, code: RPC.RESOURCE_NOT_FOUND } } as JSONRPCMessage;
}
