import { randomInt } from 'node:crypto';
import { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

/** Ids one contact may use before its block runs out; a contact sends a handful. */
const BLOCK = 2 ** 20;

/**
 * Every contact is a new SDK client, whose request ids start at 0, and the
 * contacts of one client session share keygate's session with the upstream
 * (on every replica). Two calls at once in that session would both be id 0,
 * and an upstream keys each request's answer stream by its id (the SDK's
 * server does): one call got the other's events, the other none. So each
 * contact's ids are moved into a random block of its own, numbers still (an
 * upstream may expect them), and answers moved back before the client sees
 * them. Cancellations name the moved id; requests from the upstream and
 * keygate's answers to them keep theirs.
 */
export function withUniqueRequestIds<T extends Transport>(transport: T, offset = requestIdOffset()): T {
  const moved = new Map<number, number | string>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(outgoing(message, offset, moved), options);
  let receive: Transport['onmessage'];
  // The SDK client sets onmessage when it connects: what it sets is wrapped.
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => receive && ((message: JSONRPCMessage, extra?: unknown) => receive!(incoming(message, moved), extra as never)),
    set: (handler: Transport['onmessage']) => void (receive = handler),
  });
  return transport;
}

/** A contact's block of ids, drawn at random. */
export function requestIdOffset(): number {
  return randomInt(1, 2 ** 31) * BLOCK;
}

/** The id a request the client numbered `id` has on the wire in the contact whose block starts at `offset`. */
export function wireId(offset: number, id: number): number {
  return offset + (id % BLOCK);
}

function outgoing(message: JSONRPCMessage, offset: number, moved: Map<number, number | string>): JSONRPCMessage {
  if ('method' in message && 'id' in message && typeof message.id === 'number') {
    const id = wireId(offset, message.id);
    moved.set(id, message.id);
    return { ...message, id };
  }
  if ('method' in message && message.method === 'notifications/cancelled' && typeof message.params?.requestId === 'number') {
    return { ...message, params: { ...message.params, requestId: wireId(offset, message.params.requestId) } };
  }
  return message;
}

function incoming(message: JSONRPCMessage, moved: Map<number, number | string>): JSONRPCMessage {
  if ('method' in message || !('id' in message) || typeof message.id !== 'number') return message;
  const original = moved.get(message.id);
  if (original === undefined) return message;
  moved.delete(message.id);
  return { ...message, id: original };
}
