import { Response } from 'express';
import { ListenSources, ListenStreams } from '../../../../../src/adapters/mcp/modern/listen-streams';
import { MAX_REOPENS } from '../../../../../src/adapters/mcp/modern/listen-contacts';
import { UpstreamListen, UpstreamListenRequest } from '../../../../../src/adapters/mcp/modern/listen-upstream';
import { UpstreamListener } from '../../../../../src/adapters/mcp/modern/upstream-listener';
import { StreamPlaces } from '../../../../../src/adapters/mcp/sessions/stream-places';
import { SERVERS } from '../../../../../src/application/use-cases/gateway/external/upstream-servers';
import { KEYGATE_CAPABILITIES } from '../../../../../src/application/use-cases/gateway/upstream-view/endpoint-capabilities';
import { KeyPrincipal } from '../../../../../src/application/use-cases/validate-key/validate-key.use-case';
import { ResourceRecord } from '../../../../../src/domain/resource/resource-record';
import { ScopeSet } from '../../../../../src/domain/scope';
import { FakeResponse } from '../../../../fakes/fake-response';

const record = (name: string): ResourceRecord => ({
  id: `id-${name}`,
  ownerId: 'u1',
  resource: SERVERS.resource,
  parentId: null,
  subresource: null,
  data: { name, url: `http://${name}.test/mcp` },
  createdAt: new Date(0),
  updatedAt: new Date(0),
});
const principal = (keyId = 'k1'): KeyPrincipal => ({
  keyId,
  userId: 'u1',
  scopes: ScopeSet.fromTrusted(['mcp_servers:read']),
  budgetId: keyId,
  rateLimit: null,
  hasQuota: false,
});
const messages = (res: FakeResponse) =>
  res.chunks.filter((c) => c.startsWith('event: message')).map((c) => JSON.parse(c.slice(c.indexOf('data: ') + 6)));
const flush = () => new Promise((resolve) => setImmediate(resolve));

interface SutOptions {
  perKey?: number;
  perReplica?: number;
  maxUpstreams?: number;
  servers?: ResourceRecord[];
  /** Opens an upstream contact instead of the default one, which never ends. */
  open?: (request: UpstreamListenRequest) => Promise<UpstreamListen>;
  log?: (message: string) => void;
}

function makeSut(options: SutOptions = {}) {
  const servers = options.servers ?? [record('a'), record('b')];
  const opened: { request: UpstreamListenRequest; closed: boolean }[] = [];
  const listener = {
    profile: async () => ({
      era: 'modern',
      protocolVersion: '2026-07-28',
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true } },
      discover: {},
    }),
    open: async (request: UpstreamListenRequest): Promise<UpstreamListen> => {
      if (options.open) return options.open(request);
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
    resourceAt: async (_user, _view, uri) =>
      uri.startsWith('keygate://a/') ? { record: servers[0], name: uri.slice('keygate://a/'.length) } : null,
    upstreamChanged: async () => undefined,
  };
  const places = new StreamPlaces({ perReplica: options.perReplica ?? 10, perKey: options.perKey ?? 5 });
  const streams = new ListenStreams(places, sources, listener, { maxUris: 10, maxUpstreams: options.maxUpstreams ?? 100 }, options.log);
  const listen = async (notifications: Record<string, unknown>, id: string | number = 1, key = 'k1') => {
    const res = new FakeResponse();
    await streams.serve(res as unknown as Response, { principal: principal(key), id, params: { notifications } });
    return res;
  };
  return { streams, places, opened, listen, setDigest: (value: string) => void (digest = value), revoke: () => void (usable = false) };
}

describe('ListenStreams', () => {
  it("opens one upstream contact per server the view shows, acknowledges, and closes them with the client's stream", async () => {
    const { streams, places, opened, listen } = makeSut();
    const res = await listen({ toolsListChanged: true, resourceSubscriptions: ['keygate://a/note://1', 'keygate://zz/x'] }, 'L');
    expect(opened.map((o) => [o.request.server.name, [...o.request.flags], o.request.uris])).toEqual([
      ['a', ['toolsListChanged'], ['note://1']],
      ['b', ['toolsListChanged'], []],
    ]);
    expect(messages(res)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: {
          notifications: { toolsListChanged: true, resourceSubscriptions: ['keygate://a/note://1'] },
          _meta: { 'io.modelcontextprotocol/subscriptionId': 'L' },
        },
      },
    ]);
    expect(streams.size).toBe(1);
    expect(places.heldBy('k1')).toBe(1);
    res.emit('close');
    expect(opened.every((o) => o.closed)).toBe(true);
    expect(streams.size).toBe(0);
    expect(places.heldBy('k1')).toBe(0);
  });

  it("passes an upstream's resources/updated for a URI it follows under the client's name, and nothing else it sends", async () => {
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
      {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'keygate://a/note://1', _meta: { 'io.modelcontextprotocol/subscriptionId': 2 } },
      },
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
    const serving = streams.serve(res as unknown as Response, {
      principal: principal(),
      id: 1,
      params: { notifications: { toolsListChanged: true } },
    });
    res.emit('close');
    await serving;
    await flush();
    expect(opened.every((o) => o.closed)).toBe(true);
    expect(messages(res)).toEqual([]);
    expect(places.heldBy('k1')).toBe(0);
  });

  it("refuses past the key's share with 429 and past the replica's bound with 503, the id echoed", async () => {
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

  it("tells tools/list_changed when the key's digest moves on a change heard, and ends the stream once the key is unusable", async () => {
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
      jsonrpc: '2.0',
      id: 5,
      result: {
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/subscriptionId': 5, 'io.modelcontextprotocol/serverInfo': expect.any(Object) },
      },
    });
    expect(res.writableEnded).toBe(true);
    expect(streams.size).toBe(0);
  });

  it("ends every stream with its listen's result at shutdown", async () => {
    const { streams, listen } = makeSut({ servers: [] });
    const [one, two] = [await listen({ toolsListChanged: true }, 'a'), await listen({ toolsListChanged: true }, 'b')];
    streams.closeAll();
    expect([one, two].map((res) => messages(res).at(-1)?.id)).toEqual(['a', 'b']);
    expect(streams.size).toBe(0);
  });

  describe("an upstream that ends its side (a 2025 one forgot keygate's session)", () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    /** Contacts whose end the test decides; `refuse` makes the next opens throw. */
    function ending() {
      const ends: Array<() => void> = [];
      const logged: string[] = [];
      let refuse = 0;
      const sut = makeSut({
        servers: [record('a')],
        log: (message) => void logged.push(message),
        open: async () => {
          if (refuse > 0) {
            refuse -= 1;
            throw new Error('connect ECONNREFUSED');
          }
          let end!: () => void;
          const ended = new Promise<void>((resolve) => (end = resolve));
          ends.push(end);
          return { followed: new Set(), ended, close: async () => undefined };
        },
      });
      return { ...sut, ends, logged, refuseNext: (times: number) => void (refuse = times) };
    }

    it('is listened to again after a pause that doubles, also when a reopen fails, and again from the first pause once a contact lasted', async () => {
      const { ends, listen, refuseNext } = ending();
      await listen({ toolsListChanged: true });
      expect(ends).toHaveLength(1);
      ends[0]();
      await jest.advanceTimersByTimeAsync(999);
      expect(ends).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(1);
      expect(ends).toHaveLength(2);
      // Ended again at once: the next pause is 2 s; that reopen fails, and is tried again after 4 s.
      refuseNext(1);
      ends[1]();
      await jest.advanceTimersByTimeAsync(2000);
      expect(ends).toHaveLength(2);
      await jest.advanceTimersByTimeAsync(4000);
      expect(ends).toHaveLength(3);
      // This one lasts: its end starts over from 1 s.
      await jest.advanceTimersByTimeAsync(60_000);
      ends[2]();
      await jest.advanceTimersByTimeAsync(1000);
      expect(ends).toHaveLength(4);
    });

    it(`is given up, logged, after ${MAX_REOPENS} reopens in a row that did not last`, async () => {
      const { ends, logged, listen } = ending();
      await listen({ toolsListChanged: true });
      for (let reopen = 1; reopen <= MAX_REOPENS; reopen++) {
        ends.at(-1)!();
        await jest.advanceTimersByTimeAsync(30_000);
        expect(ends).toHaveLength(reopen + 1);
      }
      ends.at(-1)!();
      await jest.advanceTimersByTimeAsync(10 * 60_000);
      expect(ends).toHaveLength(MAX_REOPENS + 1);
      expect(logged).toContainEqual(
        expect.stringMatching(
          /^MCP server a \(id-a\) is no longer listened to for a subscriptions\/listen stream: its side ended 8 times in a row$/,
        ),
      );
    });

    it("is not listened to again once the client's stream closed", async () => {
      const { ends, listen } = ending();
      const res = await listen({ toolsListChanged: true });
      ends[0]();
      res.emit('close');
      await jest.advanceTimersByTimeAsync(60_000);
      expect(ends).toHaveLength(1);
    });
  });
});
