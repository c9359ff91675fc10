import { Response } from 'express';
import { ListenSources, ListenStreams } from '../../../../../src/adapters/mcp/modern/listen-streams';
import { UpstreamListen, UpstreamListenRequest } from '../../../../../src/adapters/mcp/modern/listen-upstream';
import { UpstreamListener } from '../../../../../src/adapters/mcp/modern/upstream-listener';
import { StreamPlaces } from '../../../../../src/adapters/mcp/sessions/stream-places';
import { SERVERS } from '../../../../../src/application/use-cases/tools/external/upstream-servers';
import { KEYGATE_CAPABILITIES } from '../../../../../src/application/use-cases/upstream-view/endpoint-capabilities';
import { KeyPrincipal } from '../../../../../src/application/use-cases/validate-key/validate-key.use-case';
import { ResourceRecord } from '../../../../../src/domain/resource/resource-record';
import { ScopeSet } from '../../../../../src/domain/scope';
import { FakeResponse } from '../../../../fakes/fake-response';


const record = (name: string): ResourceRecord => ({
  id: `id-${name}`, ownerId: 'u1', resource: SERVERS.resource, parentId: null, subresource: null,
  data: { name, url: `http://${name}.test/mcp` }, createdAt: new Date(0), updatedAt: new Date(0),
});
const principal = (keyId = 'k1'): KeyPrincipal => ({ keyId, userId: 'u1', scopes: ScopeSet.fromTrusted(['mcp_servers:read']), budgetId: keyId, rateLimit: null, hasQuota: false });
const messages = (res: FakeResponse) => res.chunks.filter((c) => c.startsWith('event: message')).map((c) => JSON.parse(c.slice(c.indexOf('data: ') + 6)));
const flush = () => new Promise((resolve) => setImmediate(resolve));

function makeSut(options: { perKey?: number; perReplica?: number; maxUpstreams?: number; servers?: ResourceRecord[] } = {}) {
  const servers = options.servers ?? [record('a'), record('b')];
  const opened: { request: UpstreamListenRequest; closed: boolean }[] = [];
  const listener = {
    profile: async () => ({ era: 'modern', protocolVersion: '2026-07-28', capabilities: { tools: { listChanged: true }, resources: { subscribe: true } }, discover: {} }),
    open: async (request: UpstreamListenRequest): Promise<UpstreamListen> => {
      const entry = { request, closed: false };
      opened.push(entry);
      return { followed: new Set(request.uris), ended: new Promise(() => undefined), close: async () => void (entry.closed = true) };
    },
  } as unknown as UpstreamListener;
  let digest = 'd1';
  let usable = true;
  const sources: ListenSources = {
    capabilities: async () => KEYGATE_CAPABILITIES,
    toolsDigest: async (_user, scopes) => (scopes.allows('anything:at-all') ? 'all' : digest),
    seesTools: async () => true,
    scopesOf: async () => (usable ? ScopeSet.fromTrusted(['mcp_servers:read']) : null),
    servers: async () => servers,
    resourceAt: async (_user, _view, uri) => (uri.startsWith('keygate://a/') ? { record: servers[0], name: uri.slice('keygate://a/'.length) } : null),
    upstreamChanged: async () => undefined,
  };
  const places = new StreamPlaces({ perReplica: options.perReplica ?? 10, perKey: options.perKey ?? 5 });
  const streams = new ListenStreams(places, sources, listener, { maxUris: 10, maxUpstreams: options.maxUpstreams ?? 100 });
  const listen = async (notifications: Record<string, unknown>, id: string | number = 1, key = 'k1') => {
    const res = new FakeResponse();
    await streams.serve(res as unknown as Response, { principal: principal(key), id, params: { notifications } });
    return res;
  };
  return { streams, places, opened, listen, setDigest: (value: string) => void (digest = value), revoke: () => void (usable = false) };
}

describe('ListenStreams', () => {
  it('opens one upstream contact per server the view shows, acknowledges, and closes them with the client\'s stream', async () => {
    const { streams, places, opened, listen } = makeSut();
    const res = await listen({ toolsListChanged: true, resourceSubscriptions: ['keygate://a/note://1', 'keygate://zz/x'] }, 'L');
    expect(opened.map((o) => [o.request.server.name, [...o.request.flags], o.request.uris])).toEqual([
      ['a', ['toolsListChanged'], ['note://1']],
      ['b', ['toolsListChanged'], []],
    ]);
    expect(messages(res)).toEqual([{
      jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true, resourceSubscriptions: ['keygate://a/note://1'] }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'L' } },
    }]);
    expect(streams.size).toBe(1);
    expect(places.heldBy('k1')).toBe(1);
    res.emit('close');
    expect(opened.every((o) => o.closed)).toBe(true);
    expect(streams.size).toBe(0);
    expect(places.heldBy('k1')).toBe(0);
  });

  it('passes an upstream\'s resources/updated for a URI it follows under the client\'s name, and nothing else it sends', async () => {
    const { opened, listen } = makeSut();
    const res = await listen({ resourceSubscriptions: ['keygate://a/note://1'] }, 2);
    expect(opened).toHaveLength(1);
    const { request } = opened[0];
    const onNotice = (notice: Parameters<typeof request.onNotice>[0]) => request.onNotice(notice);
    onNotice({ method: 'notifications/resources/updated', params: { uri: 'note://2' } });
    onNotice({ method: 'notifications/message', params: { level: 'info', data: 'x' } });
    onNotice({ method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
    onNotice({ method: 'notifications/resources/updated', params: { uri: 'note://1' } });
    await flush();
    expect(messages(res).slice(1)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'keygate://a/note://1', _meta: { 'io.modelcontextprotocol/subscriptionId': 2 } } },
    ]);
  });

  it('opens no upstream contact past MCP_MAX_UPSTREAM_STREAMS_PER_REPLICA, and frees them when streams close', async () => {
    const { opened, listen } = makeSut({ maxUpstreams: 3 });
    const first = await listen({ toolsListChanged: true }, 1);
    await listen({ toolsListChanged: true }, 2);
    expect(opened).toHaveLength(3);
    first.emit('close');
    await listen({ toolsListChanged: true }, 3);
    expect(opened).toHaveLength(5);
  });

  it('closes the contacts it opened when the client goes before the acknowledgement', async () => {
    const { streams, places, opened } = makeSut();
    const res = new FakeResponse();
    const serving = streams.serve(res as unknown as Response, { principal: principal(), id: 1, params: { notifications: { toolsListChanged: true } } });
    res.emit('close');
    await serving;
    await flush();
    expect(opened.every((o) => o.closed)).toBe(true);
    expect(messages(res)).toEqual([]);
    expect(places.heldBy('k1')).toBe(0);
  });

  it('refuses past the key\'s share with 429 and past the replica\'s bound with 503, the id echoed', async () => {
    const { listen } = makeSut({ perKey: 1, perReplica: 2 });
    await listen({ toolsListChanged: true }, 1, 'k1');
    const key = await listen({ toolsListChanged: true }, 'x', 'k1');
    expect(key.statusCode).toBe(429);
    expect(key.headers['Retry-After']).toBe('5');
    expect(JSON.parse(key.chunks[0])).toMatchObject({ id: 'x', error: { code: -32000 } });
    await listen({ toolsListChanged: true }, 2, 'k2');
    const replica = await listen({ toolsListChanged: true }, 'y', 'k3');
    expect(replica.statusCode).toBe(503);
  });

  it('tells tools/list_changed when the key\'s digest moves on a change heard, and ends the stream once the key is unusable', async () => {
    const { streams, listen, setDigest, revoke } = makeSut({ servers: [] });
    const res = await listen({ toolsListChanged: true }, 5);
    await streams.changed({ userId: 'u1' });
    expect(messages(res)).toHaveLength(1);
    setDigest('d2');
    await streams.changed({ keyId: 'k1' });
    expect(messages(res).map((m) => m.method)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
    await streams.changed({ keyId: 'other' });
    expect(messages(res)).toHaveLength(2);
    revoke();
    await streams.changed({ keyId: 'k1' });
    expect(messages(res).at(-1)).toEqual({
      jsonrpc: '2.0', id: 5, result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 5, 'io.modelcontextprotocol/serverInfo': expect.any(Object) } },
    });
    expect(res.writableEnded).toBe(true);
    expect(streams.size).toBe(0);
  });

  it('ends every stream with its listen\'s result at shutdown', async () => {
    const { streams, listen } = makeSut({ servers: [] });
    const [one, two] = [await listen({ toolsListChanged: true }, 'a'), await listen({ toolsListChanged: true }, 'b')];
    streams.closeAll();
    expect([one, two].map((res) => messages(res).at(-1)?.id)).toEqual(['a', 'b']);
    expect(streams.size).toBe(0);
  });
});
