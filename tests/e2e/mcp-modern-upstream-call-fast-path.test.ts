import request from 'supertest';
import { ModernUpstreamCallFastPath } from '../../src/adapters/mcp/modern/modern-upstream-call-fast-path';
import { LazyAbort } from '../../src/adapters/mcp/upstream/lazy-abort';
import { ModernUpstreamSession } from '../../src/adapters/mcp/upstream/modern-upstream-session';
import { makeKey, rpc, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';
import { startV2Upstream, V2Upstream } from '../support/v2-upstream';

jest.setTimeout(90_000);

/**
 * A 2026-07-28 tools/call of an upstream tool is run without the SDK v2
 * server when it can be, and sent to a 2026 upstream as one direct POST
 * instead of through the SDK v2 client; either way the client must get the
 * bytes the SDK legs give, the upstream the request they send, with one
 * audit event per call. Each request is sent twice: as it comes, and with
 * the fast path (or the direct POST) declining.
 */
const V = '2026-07-28';
let t: TestApp;
let modern: V2Upstream;
let mute: V2Upstream;
let key: TestKey;
let fast: ModernUpstreamCallFastPath;
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '1500' });
  [modern, mute] = await Promise.all([startV2Upstream('modern'), startV2Upstream('modern', 'mute')]);
  key = await makeKey(t);
  for (const [name, upstream] of [
    ['modern', modern],
    ['mute', mute],
  ] as const) {
    const created = await rpc(t, key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'mcp_servers', arguments: { action: 'create', data: { name, url: upstream.url } } },
    }).expect(200);
    expect(created.body.result.isError).toBeFalsy();
  }
  // Listed once (and cached) while it answered: its calls then find no one.
  await post('/mcp/servers/mute', 1, 'tools/list', undefined, undefined);
  mute.silent = true;
  fast = t.container.get(ModernUpstreamCallFastPath);
});
afterAll(async () => {
  await Promise.all([modern, mute].map((u) => u?.stop()));
  await t?.close();
});
afterEach(() => jest.restoreAllMocks());

const envelope = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
function post(
  path: string,
  id: unknown,
  method: string,
  name: string | undefined,
  args: Record<string, unknown> | undefined,
  {
    accept = 'application/json, text/event-stream',
    meta = {},
    extra = {},
  }: { accept?: string; meta?: Record<string, unknown>; extra?: Record<string, unknown> } = {},
) {
  const params =
    method === 'tools/call' ? { name, ...(args && { arguments: args }), ...extra, _meta: { ...envelope, ...meta } } : { _meta: envelope };
  const req = request(t.app)
    .post(path)
    .set('Content-Type', 'application/json')
    .set('Accept', accept)
    .set('X-API-Key', key.raw)
    .set('MCP-Protocol-Version', V)
    .set('Mcp-Method', method);
  if (name !== undefined) req.set('Mcp-Name', name);
  return req.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
}
const toolCalledEvents = async () =>
  Number((await t.db.dataSource.query(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'tool.called'`))[0].n);

/** Headers whose values differ from one answer to the next, or only frame the body (the fast path sends a Content-Length where the SDK leg streams). */
const PER_ANSWER = new Set([
  'date',
  'content-length',
  'transfer-encoding',
  'x-request-id',
  'ratelimit',
  'ratelimit-policy',
  'ratelimit-remaining',
  'ratelimit-reset',
]);
const headersOf = (res: request.Response) => Object.fromEntries(Object.entries(res.headers).filter(([name]) => !PER_ANSWER.has(name)));
/** A sealed requestState is new each time it is minted (fresh nonce): the rest of the bytes must match. */
const unsealed = (text: string) => text.replace(/"requestState":"[^"]*"/g, '"requestState":"<sealed>"');

/** The call answered by the fast path, then by the SDK leg; whether the fast path served the first. */
async function bothPaths(path: string, id: unknown, name: string, args?: Record<string, unknown>) {
  const spy = jest.spyOn(fast, 'tryServe');
  const before = spy.mock.results.length;
  const first = await post(path, id, 'tools/call', name, args);
  const served = spy.mock.results.length === before + 1 && (await spy.mock.results[before].value) === true;
  spy.mockResolvedValueOnce(false);
  const sdk = await post(path, id, 'tools/call', name, args);
  return { first, sdk, served };
}

const CASES: [string, string, unknown, string, () => Record<string, unknown> | undefined][] = [
  ['a complete result, number id', '/mcp/servers/modern', 7, 'echo', () => ({ text: 'hi "ü"' })],
  ['a complete result, string id, on /mcp', '/mcp', 'req-"ü"', 'modern__echo', () => ({ text: 'there' })],
  ['id 0, no arguments', '/mcp/servers/modern', 0, 'echo', () => undefined],
  ['progress not requested', '/mcp/servers/modern', 3, 'count', () => ({})],
  ['logLevel absent', '/mcp/servers/modern', 4, 'log', () => ({})],
  ["the upstream's error (-32021: it wants input the client did not declare)", '/mcp/servers/modern', 5, 'ask', () => ({})],
  ['the same error for a tool that keeps its own state', '/mcp/servers/modern', 6, 'forever', () => ({})],
  ['a tool the upstream does not list (tool error)', '/mcp/servers/modern', 8, 'nope', () => ({})],
  ['an upstream that does not answer (tool error)', '/mcp/servers/mute', 9, 'echo', () => ({ text: 'x' })],
];

describe('a 2026-07-28 call of an upstream tool answered without the SDK v2 server', () => {
  it.each(CASES)(
    '%s: the same status, headers and bytes as the SDK leg, one tool.called event each',
    async (_case, path, id, tool, args) => {
      const events = await toolCalledEvents();
      const { first, sdk, served } = await bothPaths(path, id, tool, args());
      expect(served).toBe(true);
      expect(first.status).toBe(sdk.status);
      expect(headersOf(first)).toEqual(headersOf(sdk));
      expect(unsealed(first.text)).toBe(unsealed(sdk.text));
      expect(first.headers['content-type']).toBe('application/json');
      expect(Number(first.headers['content-length'])).toBe(Buffer.byteLength(first.text));
      expect(JSON.parse(first.text).id).toBe(id);
      expect(await toolCalledEvents()).toBe(events + 2);
    },
  );

  it("answers with the upstream's result, and its -32021 as the SDK leg does: on a 400", async () => {
    const echoed = await post('/mcp/servers/modern', 1, 'tools/call', 'echo', { text: 'plain' }).expect(200);
    expect(echoed.body.result.content).toEqual([{ type: 'text', text: 'modern: plain' }]);
    const asked = await post('/mcp/servers/modern', 2, 'tools/call', 'ask', {}).expect(400);
    expect(asked.body).toMatchObject({ id: 2, error: { code: -32021 } });
  });

  it('leaves SSE, progress, logLevel, retries and a client declaring what keygate relays to the SDK leg', async () => {
    const spy = jest.spyOn(fast, 'tryServe');
    const sse = await post('/mcp/servers/modern', 1, 'tools/call', 'echo', { text: 'a' }, { accept: 'text/event-stream' }).expect(200);
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
    const progress = await post('/mcp/servers/modern', 2, 'tools/call', 'count', {}, { meta: { progressToken: 'p' } }).expect(200);
    expect(progress.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(progress.text).toContain('notifications/progress');
    const logged = await post(
      '/mcp/servers/modern',
      3,
      'tools/call',
      'log',
      {},
      { meta: { 'io.modelcontextprotocol/logLevel': 'warning' } },
    ).expect(200);
    expect(logged.text).toContain('modern: a warning');
    const retry = await post(
      '/mcp/servers/modern',
      4,
      'tools/call',
      'ask',
      {},
      { extra: { inputResponses: { input: { action: 'decline' } } } },
    ).expect(200);
    expect(retry.text).toContain('modern: decline');
    const declaring = await post(
      '/mcp/servers/modern',
      5,
      'tools/call',
      'echo',
      { text: 'b' },
      {
        meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
      },
    ).expect(200);
    expect(declaring.text).toContain('modern: b');
    expect(spy).toHaveBeenCalledTimes(5);
    for (const result of spy.mock.results) expect(await result.value).toBe(false);
  });
});

describe('a plain call sent to a 2026 upstream as one direct POST', () => {
  /** The call with the direct POST, then through the SDK v2 client: the answers, and what the upstream received each time. */
  async function bothLegs(id: unknown, name: string, args: Record<string, unknown> | undefined, meta: Record<string, unknown> = {}) {
    const seen = modern.received.length;
    const direct = await post('/mcp/servers/modern', id, 'tools/call', name, args, { meta });
    jest.spyOn(ModernUpstreamSession.prototype as never, 'plainCall').mockReturnValue(undefined as never);
    const sdk = await post('/mcp/servers/modern', id, 'tools/call', name, args, { meta });
    jest.restoreAllMocks();
    const [directReceived, sdkReceived] = modern.received.slice(seen);
    expect(modern.received.length).toBe(seen + 2);
    return { direct, sdk, directReceived, sdkReceived };
  }

  it.each([
    ['a complete result', 11, 'echo', { text: 'direct "ü"' }],
    ['no arguments', 12, 'echo', undefined],
    ['an upstream error', 13, 'forever', {}],
  ])('%s: the upstream gets the same request, the client the same answer', async (_case, id, tool, args) => {
    const caps = modern.clientCapabilities.length;
    const { direct, sdk, directReceived, sdkReceived } = await bothLegs(id, tool, args);
    expect(direct.status).toBe(sdk.status);
    expect(unsealed(direct.text)).toBe(unsealed(sdk.text));
    expect(directReceived).toEqual(sdkReceived);
    expect(modern.clientCapabilities.slice(caps)).toEqual([{}, {}]);
  });

  // Node makes AbortSignals with Object.setPrototypeOf, which V8 promotes with all they reach (lazy-abort.ts).
  it('makes no AbortSignal for a direct POST; the SDK leg gets one', async () => {
    const signals = jest.spyOn(LazyAbort.prototype, 'signal', 'get');
    const direct = await post('/mcp/servers/modern', 15, 'tools/call', 'echo', { text: 'lazy' }, { meta: {} });
    expect(direct.text).toContain('lazy');
    expect(signals).not.toHaveBeenCalled();
    jest.spyOn(ModernUpstreamSession.prototype as never, 'plainCall').mockReturnValue(undefined as never);
    await post('/mcp/servers/modern', 16, 'tools/call', 'echo', { text: 'sdk' }, { meta: {} });
    expect(signals).toHaveBeenCalled();
    jest.restoreAllMocks();
  });

  it('declares what the client declared, as the SDK client does', async () => {
    const caps = modern.clientCapabilities.length;
    const { direct, sdk } = await bothLegs(
      14,
      'echo',
      { text: 'c' },
      { 'io.modelcontextprotocol/clientCapabilities': { experimental: {} } },
    );
    expect(direct.text).toBe(sdk.text);
    expect(modern.clientCapabilities.slice(caps)).toEqual([{ experimental: {} }, { experimental: {} }]);
  });
});
