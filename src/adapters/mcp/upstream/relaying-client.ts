import { Client, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { UpstreamRelay } from '../../../application/ports/upstream-mcp.port';
import { SERVER_INFO } from '../mcp-server.factory';

/** Client capabilities keygate can relay; anything else the client declared is not passed on. */
const RELAYED = ['sampling', 'elicitation', 'roots'] as const;

/** What keygate declares to an upstream: never more than the client itself declared and keygate can relay. */
export function relayedCapabilities(client: Record<string, unknown>): Record<string, unknown> {
  const declared: Record<string, unknown> = {};
  for (const name of RELAYED) {
    const value = client[name];
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) declared[name] = value;
  }
  return declared;
}

/**
 * An SDK client that declares `capabilities` to its upstream and hands what
 * the upstream sends the client during a request to the relay that
 * `relay()` returns then: logging messages, and requests (sampling,
 * elicitation, roots) whose answers go back to the upstream. Without a relay
 * (a stateless request, a JSON-only client) such a request is answered with
 * an error, and a logging message is dropped.
 */
export function relayingClient(capabilities: Record<string, unknown>, relay: () => UpstreamRelay | undefined): Client {
  // No JSON Schema validator is passed: the SDK's default builds its Ajv on first use only, and keygate's never validates a schema (it calls request(), not callTool()).
  const client = new Client({ name: SERVER_INFO.name, version: SERVER_INFO.version }, { capabilities: capabilities });
  const forward = (method: string) =>
    (async (request: { params?: unknown }) => {
      const to = relay();
      if (to === undefined)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `keygate relays ${method} to its client only during a tools/call of a session whose client accepts text/event-stream`,
        );
      const answer = await to.request(method, (request.params ?? {}) as Record<string, unknown>);
      if ('error' in answer) throw new ProtocolError(answer.error.code, answer.error.message);
      return answer.result;
    }) as never;
  if (capabilities.sampling) client.setRequestHandler('sampling/createMessage', forward('sampling/createMessage'));
  if (capabilities.elicitation) client.setRequestHandler('elicitation/create', forward('elicitation/create'));
  if (capabilities.roots) client.setRequestHandler('roots/list', forward('roots/list'));
  client.setNotificationHandler('notifications/message', async (notification) => {
    await relay()?.notify(notification.method, notification.params);
  });
  return client;
}
