import { Client } from '@modelcontextprotocol/client';
import { InputPassthrough, UpstreamRelay } from '../../../application/ports/upstream-mcp.port';
import { SERVER_INFO } from '../mcp-server.factory';

/**
 * An SDK v2 client for a 2026-07-28 upstream serving a 2026-07-28 client's
 * request: it declares exactly what that client declared (so the upstream
 * asks only for input the client can give, or answers -32021 itself), never
 * fulfils input requests (each input_required answer goes back to the
 * client, which answers on its own retry), and hands the upstream's log
 * messages to the call's relay, which passes them on only when the client
 * sent a logLevel (the upstream is sent none otherwise, and must send none).
 */
export function inputPassthroughClient(input: InputPassthrough, relay: UpstreamRelay | undefined): Client {
  const client = new Client(
    { name: SERVER_INFO.name, version: SERVER_INFO.version },
    {
      capabilities: input.clientCapabilities,
      inputRequired: { autoFulfill: false },
    },
  );
  if (relay !== undefined && input.logLevel !== undefined) {
    client.setNotificationHandler('notifications/message', (async (notification: { params: Record<string, unknown> }) => {
      await relay.notify('notifications/message', notification.params);
    }) as never);
  }
  return client;
}
