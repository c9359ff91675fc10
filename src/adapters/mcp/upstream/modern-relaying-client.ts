import { Client } from '@modelcontextprotocol/client';
import { UpstreamRelay } from '../../../application/ports/upstream-mcp.port';
import { SERVER_INFO } from '../mcp-server.factory';

/** The client's relayed answer was an error (refused, timed out, cancelled): a 2026 retry can carry results only, so the call ends with it. */
export class UnrelayedInput extends Error {}

/** Rounds of input one call may ask for (the SDK's own default, fixed here so an SDK update cannot widen it). */
const MAX_ROUNDS = 10;

const METHODS = { sampling: 'sampling/createMessage', elicitation: 'elicitation/create', roots: 'roots/list' } as const;

/**
 * An SDK v2 client for a 2026-07-28 upstream that declares `capabilities`
 * (already cut to what the client session declared and keygate relays) in
 * every request's `_meta` envelope. With some declared and a `relay`, an
 * `input_required` answer is fulfilled by the SDK (autoFulfill): each input
 * request goes to the client as a real request on the call's stream,
 * through keygate's relay and its bounds, and the SDK retries with the
 * answers. Without, nothing is declared or fulfilled.
 */
export function modernRelayingClient(capabilities: Record<string, unknown>, relay: UpstreamRelay | undefined): Client {
  const relaying = relay !== undefined && Object.keys(capabilities).length > 0;
  const client = new Client(
    { name: SERVER_INFO.name, version: SERVER_INFO.version },
    {
      capabilities: relaying ? capabilities : {},
      inputRequired: { autoFulfill: relaying, maxRounds: MAX_ROUNDS },
    },
  );
  if (!relaying) return client;
  for (const [capability, method] of Object.entries(METHODS)) {
    if (!(capability in capabilities)) continue;
    client.setRequestHandler(method, (async (request: { params?: unknown }) => {
      const answer = await relay.request(method, (request.params ?? {}) as Record<string, unknown>);
      if ('error' in answer) throw new UnrelayedInput(answer.error.message);
      return answer.result;
    }) as never);
  }
  return client;
}
