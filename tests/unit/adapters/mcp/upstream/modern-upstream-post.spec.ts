import http from 'node:http';
import { UpstreamRefusal } from '../../../../../src/application/ports/upstream-refusal';
import { InputPassthrough } from '../../../../../src/application/ports/upstream-mcp.port';
import { ModernUpstreamSession } from '../../../../../src/adapters/mcp/upstream/modern-upstream-session';
import { pinnedAgent } from '../../../../../src/adapters/mcp/upstream/pinned-agent';
import { UpstreamAddressGuard } from '../../../../../src/adapters/mcp/upstream/upstream-address-guard';
import { ModernProfile } from '../../../../../src/adapters/mcp/upstream/upstream-profile';
import { Answer, scriptedUpstream, Seen } from '../../../../support/scripted-upstream';

/**
 * A plain 2026 tools/call goes to a 2026 upstream as one direct POST
 * (modern-upstream-post.ts). Against a scripted loopback server, each call
 * is made twice, directly and through the SDK v2 client, and must send the
 * same request and come back the same; any answer the direct POST does not
 * read itself is read by the SDK client without a second request.
 */
const upstream = scriptedUpstream();
afterAll(() => allowed.close());
afterEach(() => jest.restoreAllMocks());

const LIMITS = { timeoutMs: 2000, maxBytes: 4096, maxPages: 5, maxTools: 100 };
const PROFILE: ModernProfile = {
  era: 'modern',
  protocolVersion: '2026-07-28',
  capabilities: { tools: {} },
  discover: {
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: {} },
    serverInfo: { name: 'up', version: '1' },
    resultType: 'complete',
  },
};
const allowed = pinnedAgent(new UpstreamAddressGuard(['127.0.0.0/8']), 2000);

function session(input: InputPassthrough = { clientCapabilities: {} }, limits = LIMITS, agent = allowed, at = upstream.url) {
  return new ModernUpstreamSession(
    { id: 's', version: 'v1', name: 'up', url: at, headers: { 'X-Upstream-Key': 'secret-value' } },
    agent,
    limits,
    PROFILE,
    { forwarded: { trace: {}, input } },
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
  jest.spyOn(ModernUpstreamSession.prototype as never, 'plainCall').mockReturnValue(undefined as never);
  const second = make();
  const sdk = await outcome(second.callTool('echo', args));
  await second.close();
  return { direct, sdk, directSeen, sdkSeen: upstream.seen };
}

const json =
  (status: number, message: unknown): Answer =>
  (_req, res) =>
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(message));
const complete = (text: string) => ({
  content: [{ type: 'text', text }],
  resultType: 'complete',
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'up', version: '1' } },
});

/** The request as the upstream sees it, less what only framing or the fetch implementation adds. */
const requestOf = (s: Seen) => {
  const { host: _host, connection: _c, 'accept-language': _l, 'sec-fetch-mode': _m, 'accept-encoding': _e, ...headers } = s.headers;
  return { method: s.method, url: s.url, headers, body: s.body };
};

describe('a plain 2026 tools/call sent as one direct POST', () => {
  it("sends the SDK client's request byte for byte (headers, the record's secret header, body) and reads its complete result", async () => {
    upstream.answer = (_req, res, body) => json(200, { jsonrpc: '2.0', id: JSON.parse(body).id, result: complete('hi') })(_req, res, body);
    const { direct, sdk, directSeen, sdkSeen } = await bothLegs();
    expect(direct).toEqual({ result: { content: [{ type: 'text', text: 'hi' }] } });
    expect(direct).toEqual(sdk);
    expect(directSeen).toHaveLength(1);
    expect(requestOf(directSeen[0])).toEqual(requestOf(sdkSeen[0]));
    expect(directSeen[0].headers['x-upstream-key']).toBe('secret-value');
  });

  it("declares the client's capabilities and leaves out absent arguments as the SDK client does", async () => {
    upstream.answer = (_req, res, body) =>
      json(200, { jsonrpc: '2.0', id: JSON.parse(body).id, result: complete('none') })(_req, res, body);
    const { direct, sdk, directSeen, sdkSeen } = await bothLegs(undefined, () => session({ clientCapabilities: { experimental: {} } }));
    expect(direct).toEqual(sdk);
    expect(requestOf(directSeen[0])).toEqual(requestOf(sdkSeen[0]));
  });

  it.each([
    ['a JSON-RPC error', json(200, { jsonrpc: '2.0', id: 0, error: { code: -32602, message: 'bad "text"', data: { why: 1 } } })],
    [
      'a result the SDK reads itself (image content, isError)',
      json(200, {
        jsonrpc: '2.0',
        id: 0,
        result: { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], isError: true, resultType: 'complete' },
      }),
    ],
    ['a result without resultType (the SDK refuses it)', json(200, { jsonrpc: '2.0', id: 0, result: { content: [] } })],
    ['an answer for another id', json(200, { jsonrpc: '2.0', id: 7, result: complete('x') })],
    [
      'a body that is not JSON',
      (_req: http.IncomingMessage, res: http.ServerResponse) =>
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"jsonrpc":'),
    ],
    [
      'an HTTP 500',
      (_req: http.IncomingMessage, res: http.ServerResponse) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('boom'),
    ],
    ['an HTTP 404 JSON-RPC error', json(404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } })],
    [
      'an SSE answer with a notification first',
      (_req: http.IncomingMessage, res: http.ServerResponse) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write(
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'x', progress: 1 } })}\n\n`,
        );
        res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 0, result: complete('streamed') })}\n\n`);
      },
    ],
    [
      'an input_required answer',
      json(200, {
        jsonrpc: '2.0',
        id: 0,
        result: { resultType: 'input_required', inputRequests: { a: { method: 'roots/list' } }, requestState: 'st' },
      }),
    ],
  ])('%s: the outcome the SDK client gives, from one request', async (_case, scripted) => {
    upstream.answer = scripted;
    // An answer for another id never answers the call: each leg waits out the contact's timeout, 250 ms here rather than 2 s.
    const limits = _case === 'an answer for another id' ? { ...LIMITS, timeoutMs: 250 } : LIMITS;
    const { direct, sdk, directSeen, sdkSeen } = await bothLegs({ text: 'hi' }, () => session(undefined, limits));
    if (_case === 'an answer for another id')
      expect(direct).toEqual({ error: 'SdkError: TimeoutError: The operation was aborted due to timeout' });
    expect(direct).toEqual(sdk);
    expect(directSeen.filter((s) => s.method === 'POST')).toHaveLength(1);
    expect(requestOf(directSeen[0])).toEqual(requestOf(sdkSeen[0]));
  });

  it("lets the SDK's fetch follow a redirect, sending the call to where it points", async () => {
    upstream.answer = (req, res, body) => {
      if (req.url === '/mcp') return void res.writeHead(307, { Location: '/moved' }).end();
      json(200, { jsonrpc: '2.0', id: JSON.parse(body).id, result: complete('moved') })(req, res, body);
    };
    const { direct, sdk, directSeen } = await bothLegs();
    expect(direct).toEqual({ result: { content: [{ type: 'text', text: 'moved' }] } });
    expect(direct).toEqual(sdk);
    expect(directSeen.map((s) => s.url)).toEqual(['/mcp', '/mcp', '/moved']);
  });

  it.each([
    [
      'with a Content-Length',
      (_req: http.IncomingMessage, res: http.ServerResponse) =>
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(`{"pad":"${'x'.repeat(8000)}"}`),
    ],
    [
      'chunked',
      (_req: http.IncomingMessage, res: http.ServerResponse) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(`{"pad":"${'x'.repeat(3000)}`);
        res.end(`${'x'.repeat(3000)}"}`);
      },
    ],
    [
      'as SSE',
      (_req: http.IncomingMessage, res: http.ServerResponse) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write(`data: ${'x'.repeat(3000)}`);
        res.end(`${'x'.repeat(3000)}\n\n`);
      },
    ],
  ])("refuses a reply over the byte limit (%s) with the SDK leg's refusal", async (_case, scripted) => {
    upstream.answer = scripted;
    const { direct, sdk } = await bothLegs();
    expect(direct).toEqual({ error: 'UpstreamRefusal: upstream reply over MCP_UPSTREAM_MAX_BYTES (4096 bytes)' });
    expect(direct).toEqual(sdk);
  });

  it('refuses an address the guard does not allow, without sending anything', async () => {
    upstream.answer = json(200, { jsonrpc: '2.0', id: 0, result: complete('never') });
    const guarded = pinnedAgent(new UpstreamAddressGuard([]), 2000);
    const { direct, sdk, directSeen, sdkSeen } = await bothLegs(undefined, () => session(undefined, LIMITS, guarded));
    expect(direct).toEqual(sdk);
    expect((direct as { error: string }).error).toMatch(/^UpstreamRefusal: upstream address not allowed/);
    expect([...directSeen, ...sdkSeen]).toEqual([]);
  });

  it("gives up at the contact's timeout", async () => {
    upstream.answer = () => undefined;
    const contact = session(undefined, { ...LIMITS, timeoutMs: 200 });
    await expect(contact.callTool('echo', {})).rejects.not.toBeInstanceOf(UpstreamRefusal);
    await contact.close();
  });
});
