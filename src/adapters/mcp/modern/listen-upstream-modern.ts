import { Client, DiscoverResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Agent } from 'undici';
import { SERVER_INFO } from '../mcp-server.factory';
import { listenFetch } from './listen-fetch';
import { CHANGE_METHODS, UpstreamListen, UpstreamListenLimits, UpstreamListenRequest } from './listen-upstream';

/**
 * A 2026-07-28 upstream's own subscriptions/listen, through the SDK v2
 * client connected on the learned discover result (no probe): the flags and
 * URIs asked for, what its acknowledgement honoured kept as followed, its
 * change notifications handed on. Open once the upstream acknowledged.
 */
export async function openModernListen(
  request: UpstreamListenRequest,
  discover: DiscoverResult,
  agent: Agent,
  limits: UpstreamListenLimits,
): Promise<UpstreamListen> {
  const { server } = request;
  const stop = new AbortController();
  const client = new Client({ name: SERVER_INFO.name, version: SERVER_INFO.version }, {});
  for (const method of CHANGE_METHODS) {
    client.setNotificationHandler(method as 'notifications/tools/list_changed', (notification) => request.onNotice(notification as never));
  }
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: server.headers },
    fetch: listenFetch(agent, limits.maxBytes, stop.signal),
  });
  try {
    await client.connect(transport, { prior: { kind: 'modern', discover }, timeout: limits.timeoutMs });
    const subscription = await client.listen(
      {
        ...Object.fromEntries([...request.flags].map((flag) => [flag, true])),
        ...(request.uris.length > 0 && { resourceSubscriptions: [...request.uris] }),
      },
      { timeout: limits.timeoutMs, signal: stop.signal },
    );
    const asked = new Set(request.uris);
    const followed = new Set((subscription.honoredFilter.resourceSubscriptions ?? []).filter((uri) => asked.has(uri)));
    return {
      followed,
      ended: subscription.closed.then(() => undefined),
      close: async () => {
        await subscription.close().catch(() => undefined);
        stop.abort();
        await client.close().catch(() => undefined);
      },
    };
  } catch (error) {
    stop.abort();
    await client.close().catch(() => undefined);
    throw error;
  }
}
