import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Agent } from 'undici';
import { withoutSecrets } from '../../../domain/resource/without-secrets';
import { SERVER_INFO } from '../mcp-server.factory';
import { UpstreamEventStream } from '../notifications/upstream-event-stream';
import { listenFetch } from './listen-fetch';
import { upstreamOffers, UpstreamListen, UpstreamListenLimits, UpstreamListenRequest } from './listen-upstream';

/**
 * A 2025 upstream, held for a listen stream: a session of keygate's own
 * (initialize), its standalone GET stream open (upstream-event-stream.ts:
 * pinned, bounded per message, resumed with Last-Event-ID) before any
 * resources/subscribe goes, so an update sent right after a subscribe is
 * not lost; then resources/subscribe for each URI, where the upstream
 * declares subscribe. close() ends the session (DELETE); so does the
 * upstream forgetting it (its GET stream 404), which ends the contact for
 * listen-contacts.ts to reopen. An upstream without sessions has no stream
 * to hold: nothing is followed.
 */
export async function openLegacyListen(
  request: UpstreamListenRequest,
  capabilities: Record<string, unknown>,
  agent: Agent,
  limits: UpstreamListenLimits,
  log: (message: string, error?: unknown) => void,
): Promise<UpstreamListen> {
  const { server } = request;
  const stop = new AbortController();
  const client = new Client({ name: SERVER_INFO.name, version: SERVER_INFO.version }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: server.headers },
    fetch: listenFetch(agent, limits.maxBytes, stop.signal),
  });
  let stream: UpstreamEventStream | undefined;
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => (ended = resolve));
  const close = async () => {
    stream?.close();
    await transport.terminateSession().catch(() => undefined);
    stop.abort();
    await client.close().catch(() => undefined);
    ended();
  };
  try {
    await client.connect(transport, { timeout: limits.timeoutMs });
    const upstreamSessionId = transport.sessionId;
    if (upstreamSessionId === undefined) return { followed: new Set(), ended: new Promise(() => undefined), close };
    stream = new UpstreamEventStream(
      { url: server.url, headers: server.headers, upstreamSessionId, protocolVersion: transport.protocolVersion ?? '' },
      agent,
      { connectTimeoutMs: limits.timeoutMs, maxBytes: limits.maxBytes },
      (message) => void ('id' in message || request.onNotice(message as never)),
      log,
      () => void close(),
    );
    await within(stream.whenListening(), limits.timeoutMs);
    const followed = new Set<string>();
    if (upstreamOffers(capabilities).subscribe) {
      for (const uri of request.uris) {
        try {
          await client.request({ method: 'resources/subscribe', params: { uri } }, { timeout: limits.timeoutMs });
          followed.add(uri);
        } catch (error) {
          const reason = withoutSecrets(String((error as Error)?.message ?? error), Object.values(server.headers)).slice(0, 300);
          log(`MCP server ${server.name} did not follow ${uri.slice(0, 200)} for a subscriptions/listen stream: ${reason}`);
        }
      }
    }
    return { followed, ended: closed, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Whether `promise` gave true within `ms`. */
function within(promise: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
