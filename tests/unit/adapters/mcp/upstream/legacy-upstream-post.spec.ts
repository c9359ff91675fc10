import http from 'node:http';
import { UpstreamRefusal } from '../../../../../src/application/ports/upstream-refusal';
import { UpstreamRelay } from '../../../../../src/application/ports/upstream-mcp.port';
import { ClientSessionView, UpstreamSessionStore } from '../../../../../src/application/ports/upstream-session-store.port';
import { SdkUpstreamSession } from '../../../../../src/adapters/mcp/upstream/sdk-upstream-session';
import { pinnedAgent } from '../../../../../src/adapters/mcp/upstream/pinned-agent';
import { UpstreamAddressGuard } from '../../../../../src/adapters/mcp/upstream/upstream-address-guard';
import { Answer, scriptedUpstream, Seen } from '../../../../support/scripted-upstream';

/**
 * A plain tools/call in a held 2025 session goes as one direct POST
 * (legacy-upstream-post.ts). Against a scripted loopback server, each call
 * is made twice, directly and through the SDK client, and must send the
 * same request and come back the same; an answer the direct POST does not
 * read itself is read by the SDK client without a second request, even one
 * whose upstream waits mid-stream for an answer.
 */
const upstream = scriptedUpstream();
afterAll(() => allowed.close());
afterEach(() => jest.restoreAllMocks());

const LIMITS = { timeoutMs: 2000, maxBytes: 4096, maxPages: 5, maxTools: 100 };
const allowed = pinnedAgent(new UpstreamAddressGuard(['127.0.0.0/8']), 2000);
const VIEW: ClientSessionView = {
  clientCapabilities: {},
  logLevel: null,
  userId: 'u',
  held: {
    upstreamSessionId: 'up-1',
    protocolVersion: '2025-11-25',
    serverCapabilities: { tools: {} },
    clientCapabilities: {},
    logLevel: null,
  },
};
const store = (view: ClientSessionView) =>
  ({
    find: async () => view,
    save: async () => true,
    forget: async () => undefined,
    setHeldLogLevel: async () => undefined,
    take: async () => [],
  }) as unknown as UpstreamSessionStore;

function session(limits = LIMITS, view = VIEW, relay?: UpstreamRelay) {
  return new SdkUpstreamSession(
    { id: 's', version: 'v1', name: 'up', url: upstream.url, headers: { 'X-Upstream-Key': 'secret-value' } },
    allowed,
    limits,
    { clientSessionId: 'c', relay },
    { store: store(view), clientSessionId: 'c', serverId: 's' },
  );
}

/** One call, then the SDK client's: each outcome (result or error) and what the server saw of each. */
async function bothLegs(args: Record<string, unknown> | undefined = { text: 'hi' }, make = () => session()) {
  const outcome = (promise: Promise<unknown>) =>
    promise.then(
      (result) => ({ result }),
      (error: Error) => ({ error: `${error.name}: ${error.message}` }),
    );
  const first = make();
  const direct = await outcome(first.callTool('echo', args));
  await first.close();
  const directSeen = upstream.seen;
  upstream.seen = [];
  jest.spyOn(SdkUpstreamSession.prototype as never, 'plainCall').mockReturnValue(undefined as never);
  const second = make();
  const sdk = await outcome(second.callTool('echo', args));
  await second.close();
  jest.restoreAllMocks();
  return { direct, sdk, directSeen, sdkSeen: upstream.seen };
}

const idOf = (body: string) => (JSON.parse(body) as { id: number }).id;
const json =
  (status: number, message: (id: number) => unknown): Answer =>
  (_req, res, body) =>
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(message(idOf(body))));
const sse =
  (...events: ((id: number) => string)[]): Answer =>
  (_req, res, body) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    for (const event of events) res.write(event(idOf(body)));
    res.end();
  };
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
const PRIMING = () => 'id: e-1\nretry: 1000\ndata: \n\n';
const message = (payload: (id: number) => unknown) => (id: number) => `event: message\nid: e-2\ndata: ${JSON.stringify(payload(id))}\n\n`;

/** The request as the upstream sees it, less what only framing or the fetch implementation adds, and the contact's random wire id (and so its length). */
const requestOf = (s: Seen) => {
  const {
    host: _host,
    connection: _c,
    'content-length': _n,
    'accept-language': _l,
    'sec-fetch-mode': _m,
    'accept-encoding': _e,
    ...headers
  } = s.headers;
  return {
    method: s.method,
    url: s.url,
    headers,
    body: s.body.replace(/"id":\d+}$/, '"id":<wire>}').replace(/"requestId":\d+/, '"requestId":<wire>'),
  };
};

describe('a plain tools/call in a held 2025 session sent as one direct POST', () => {
  it.each([
    ['a JSON answer', json(200, (id) => ({ jsonrpc: '2.0', id, result: text('hi') }))],
    [
      'an SSE answer',
      sse(
        PRIMING,
        message((id) => ({ result: text('hi'), jsonrpc: '2.0', id })),
      ),
    ],
  ])("%s: sends the SDK client's request (headers, the record's header, body, wire id) and reads the result", async (_case, scripted) => {
    upstream.answer = scripted;
    const { direct, sdk, directSeen, sdkSeen } = await bothLegs();
    expect(direct).toEqual({ result: text('hi') });
    expect(direct).toEqual(sdk);
    expect(directSeen).toHaveLength(1);
    expect(requestOf(directSeen[0])).toEqual(requestOf(sdkSeen[0]));
    expect(directSeen[0].headers).toMatchObject({
      'x-upstream-key': 'secret-value',
      'mcp-session-id': 'up-1',
      'mcp-protocol-version': '2025-11-25',
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    });
    expect(directSeen[0].headers['mcp-method']).toBeUndefined();
    expect(idOf(directSeen[0].body) % 2 ** 20).toBe(0);
  });

  it.each([
    ['a JSON-RPC error in JSON', json(200, (id) => ({ jsonrpc: '2.0', id, error: { code: -32602, message: 'bad "text"' } }))],
    [
      'a JSON-RPC error in SSE',
      sse(
        PRIMING,
        message((id) => ({ jsonrpc: '2.0', id, error: { code: -32602, message: 'bad' } })),
      ),
    ],
    [
      'image content',
      sse(message((id) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] } }))),
    ],
    ['a resultType (a 2026 field)', json(200, (id) => ({ jsonrpc: '2.0', id, result: { ...text('x'), resultType: 'complete' } }))],
    ['an unknown result field', sse(message((id) => ({ jsonrpc: '2.0', id, result: { ...text('x'), extra: 1 } })))],
    [
      'a notification first',
      sse(
        message(() => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } })),
        message((id) => ({ jsonrpc: '2.0', id, result: text('after') })),
      ),
    ],
    [
      'a comment first',
      sse(
        () => ': hi\n\n',
        message((id) => ({ jsonrpc: '2.0', id, result: text('after') })),
      ),
    ],
    ['CR line ends', sse((id) => `event: message\r\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: text('cr') })}\r\n\r\n`)],
    [
      'a body that is not JSON',
      (_req: http.IncomingMessage, res: http.ServerResponse) =>
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"jsonrpc":'),
    ],
    [
      'an HTTP 500',
      (_req: http.IncomingMessage, res: http.ServerResponse) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('boom'),
    ],
    [
      'another media type',
      (_req: http.IncomingMessage, res: http.ServerResponse) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('hi'),
    ],
  ])('%s: the outcome the SDK client gives, from one request', async (_case, scripted) => {
    upstream.answer = scripted;
    const { direct, sdk, directSeen, sdkSeen } = await bothLegs();
    expect(direct).toEqual(sdk);
    expect(directSeen.filter((s) => s.method === 'POST')).toHaveLength(1);
    expect(requestOf(directSeen[0])).toEqual(requestOf(sdkSeen[0]));
  });

  it('hands over a stream whose upstream asks the client something and waits for the answer before it answers', async () => {
    let waiting: { res: http.ServerResponse; id: number } | null = null;
    upstream.answer = (_req, res, body) => {
      const msg = JSON.parse(body) as { id: number | string; method?: string };
      if (msg.method === 'tools/call') {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write(PRIMING());
        res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 'ping-1', method: 'ping' })}\n\n`);
        waiting = { res, id: msg.id as number };
        return;
      }
      // The client's answer to the ping: only then does the tool's result come.
      res.writeHead(202).end();
      const pending = waiting!;
      pending.res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: pending.id, result: text('pinged') })}\n\n`);
    };
    const { direct, sdk, directSeen, sdkSeen } = await bothLegs();
    expect(direct).toEqual({ result: text('pinged') });
    expect(direct).toEqual(sdk);
    expect(directSeen.map((s) => (JSON.parse(s.body) as { method?: string }).method ?? 'answer')).toEqual(['tools/call', 'answer']);
    expect(directSeen.map(requestOf)).toEqual(sdkSeen.map(requestOf));
  });

  it("lets the SDK's fetch follow a redirect, the call sent to where it points", async () => {
    upstream.answer = (req, res, body) => {
      if (req.url === '/mcp') return void res.writeHead(307, { Location: '/moved' }).end();
      json(200, (id) => ({ jsonrpc: '2.0', id, result: text('moved') }))(req, res, body);
    };
    const { direct, sdk, directSeen } = await bothLegs();
    expect(direct).toEqual({ result: text('moved') });
    expect(direct).toEqual(sdk);
    expect(directSeen.map((s) => s.url)).toEqual(['/mcp', '/mcp', '/moved']);
  });

  it('refuses an SSE answer past MCP_UPSTREAM_MAX_BYTES as the SDK leg does', async () => {
    upstream.answer = sse(
      PRIMING,
      () => `event: message\ndata: {"pad":"${'x'.repeat(3000)}"}\n\n`,
      () => `data: {"pad":"${'y'.repeat(3000)}"}\n\n`,
    );
    const first = session();
    const failure = await first.callTool('echo', {}).catch((error: unknown) => error);
    await first.close();
    expect(failure).toBeInstanceOf(UpstreamRefusal);
    expect((failure as Error).message).toContain('MCP_UPSTREAM_MAX_BYTES');
  });

  it("leaves a call to the SDK client when the held session has yet to get the client's log level", async () => {
    upstream.answer = (_req, res, body) => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id, result: method === 'tools/call' ? text('hi') : {} }));
    };
    const leveled = { ...VIEW, logLevel: 'debug', held: { ...VIEW.held!, serverCapabilities: { tools: {}, logging: {} } } };
    const posted = jest.spyOn(SdkUpstreamSession.prototype as never, 'posted');
    const plain = jest.spyOn(SdkUpstreamSession.prototype as never, 'plainCall');
    const first = session(LIMITS, leveled);
    await first.callTool('echo', {});
    await first.close();
    expect(posted).toHaveBeenCalledTimes(1);
    expect(plain.mock.results[0].value).toBeUndefined();
    expect(upstream.seen.map((s) => (JSON.parse(s.body) as { method: string }).method)).toEqual(['logging/setLevel', 'tools/call']);
  });

  it('tells the upstream when the client cancels the call, as the SDK client does', async () => {
    upstream.answer = (_req, res, body) => {
      if ((JSON.parse(body) as { method: string }).method !== 'tools/call') return void res.writeHead(202).end();
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(PRIMING()); // and nothing more: a slow tool
    };
    /** A call the client cancels once the upstream has it; what the upstream received. */
    const cancelled = async () => {
      upstream.seen = [];
      const client = new AbortController();
      const relay: UpstreamRelay = {
        signal: client.signal,
        wantsProgress: false,
        progress: async () => undefined,
        notify: async () => undefined,
        request: async () => ({ error: { code: -32601, message: 'no' } }),
      };
      const contact = session(LIMITS, VIEW, relay);
      const call = contact.callTool('echo', {}).catch((error: unknown) => error);
      while (upstream.seen.length === 0) await new Promise((resolve) => setImmediate(resolve));
      client.abort('the client cancelled');
      expect(await call).toBeDefined();
      await contact.close();
      // The cancellation names the call by its wire id.
      expect((JSON.parse(upstream.seen[1].body) as { params: { requestId: number } }).params.requestId).toBe(idOf(upstream.seen[0].body));
      return upstream.seen.map(requestOf);
    };
    const direct = await cancelled();
    jest.spyOn(SdkUpstreamSession.prototype as never, 'plainCall').mockReturnValue(undefined as never);
    const sdk = await cancelled();
    expect(direct).toEqual(sdk);
    expect(direct.map((request) => JSON.parse(request.body.replace(/<wire>/g, '0')) as unknown)).toEqual([
      expect.objectContaining({ method: 'tools/call' }),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: expect.any(Number), reason: 'the client cancelled' } },
    ]);
  });
});
