import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { LazyAbort } from '../../src/adapters/mcp/upstream/lazy-abort';
import { SdkUpstreamSession } from '../../src/adapters/mcp/upstream/sdk-upstream-session';
import { makeKey, rpc, TestKey } from '../support/mcp-keys';
import { listen } from '../support/mcp-client';
import { startTestApp, TestApp } from '../support/test-app';
import { RawRequest, startV2Upstream, V2Upstream } from '../support/v2-upstream';

jest.setTimeout(90_000);

/**
 * A 2025-11-25 client session in front of a dual-era upstream: keygate holds
 * a 2025 session with it, and a plain tools/call goes there as one direct
 * POST (legacy-upstream-post.ts) instead of through the SDK client. Each
 * call is made twice, directly and with the direct POST declining: the
 * client must get the same answer, the upstream the same request, the tool
 * must run once per call and each call give one tool.called event. An
 * answer the direct POST does not read (elicitation mid-call, a result that
 * is not text, a forgotten session) is read by the SDK client without a
 * second request.
 */
const V = '2025-11-25';
const BLOCK = 2 ** 20;
let t: TestApp;
let app: { url: string; close(): Promise<void> };
let dual: V2Upstream;
let key: TestKey;
let base: string;
const closers: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '5000' });
  app = await listen(t.app);
  dual = await startV2Upstream('dual');
  dual.tools.push(
    { name: 'fail', description: 'Answers a JSON-RPC error', inputSchema: { type: 'object' } },
    { name: 'picture', description: 'Answers an image', inputSchema: { type: 'object' } },
  );
  key = await makeKey(t);
  const created = await rpc(t, key, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'mcp_servers',
      arguments: { action: 'create', data: { name: 'dual', url: dual.url, headers: { 'X-Upstream-Key': 'k-1' } } },
    },
  }).expect(200);
  expect(created.body.result.isError).toBeFalsy();
  base = `${app.url}/servers/dual`;
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c.close().catch(() => undefined)));
  await dual?.stop();
  await app?.close();
  await t?.close();
});
afterEach(() => jest.restoreAllMocks());

const HEADERS = { 'x-api-key': '', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
async function post(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base, { method: 'POST', headers: { ...HEADERS, 'x-api-key': key.raw, ...headers }, body: JSON.stringify(body) });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    text: await res.text(),
    sessionId: res.headers.get('mcp-session-id'),
  };
}

/** A 2025-11-25 session on /mcp/servers/dual; its id. */
async function openSession(): Promise<string> {
  const init = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: V, capabilities: {}, clientInfo: { name: 'legacy-post-test', version: '1.0.0' } },
  });
  expect(init.status).toBe(200);
  const session = init.sessionId!;
  expect(
    (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': session, 'mcp-protocol-version': V })).status,
  ).toBe(202);
  return session;
}

const call = (session: string, id: number, name: string, args?: Record<string, unknown>) =>
  post(
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name, ...(args && { arguments: args }) } },
    { 'mcp-session-id': session, 'mcp-protocol-version': V },
  );

const toolCalledEvents = async () =>
  Number((await t.db.dataSource.query(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'tool.called'`))[0].n);
const toolRuns = () => dual.seen.filter((seen) => seen === 'tools/call legacy').length;

/** keygate's SSE event ids are new on every answer: the rest of the bytes must match. */
const eventIdsOut = (text: string) => text.replace(/^id: .*$/gm, 'id: <event>');

/** What of a request keygate sent must not depend on the leg: its line, the headers that carry meaning, the body but for the contact's wire id. */
function comparable(request: RawRequest) {
  const wire = /"id":(\d+)}$/.exec(request.body);
  expect(wire).not.toBeNull();
  const id = Number(wire![1]);
  expect(id % BLOCK).toBe(0);
  expect(id).toBeGreaterThan(0);
  const { headers } = request;
  return {
    method: request.method,
    url: request.url,
    headers: Object.fromEntries(
      [
        'host',
        'content-type',
        'accept',
        'mcp-session-id',
        'mcp-protocol-version',
        'mcp-method',
        'mcp-name',
        'x-upstream-key',
        'user-agent',
      ].map((name) => [name, headers[name]]),
    ),
    body: request.body.replace(/"id":\d+}$/, '"id":<wire>}'),
  };
}

/** The call with the direct POST, then with it declining: the answers, what the upstream received, how often the tool ran in each. */
async function bothLegs(session: string, id: number, name: string, args?: Record<string, unknown>) {
  await call(session, 100, 'echo', { text: 'warm' }); // the listing cached, the held session open
  const seen = dual.requests.length;
  const events = await toolCalledEvents();
  const runs = toolRuns();
  const direct = await call(session, id, name, args);
  const directRuns = toolRuns() - runs;
  jest.spyOn(SdkUpstreamSession.prototype as never, 'plainCall').mockReturnValue(undefined as never);
  const sdk = await call(session, id, name, args);
  jest.restoreAllMocks();
  const sdkRuns = toolRuns() - runs - directRuns;
  const [directReceived, sdkReceived] = dual.requests.slice(seen);
  expect(dual.requests.length).toBe(seen + 2);
  expect(await toolCalledEvents()).toBe(events + 2);
  return { direct, sdk, directReceived, sdkReceived, directRuns, sdkRuns };
}

describe('a plain call in a held 2025 session sent as one direct POST', () => {
  it.each([
    ['a text result', 11, 'echo', { text: 'direct "ü"' }],
    ['no arguments', 12, 'echo', undefined],
    ['a result the upstream logs during (handed to the SDK client)', 13, 'log', {}],
    ["the upstream's JSON-RPC error", 14, 'fail', {}],
    ['a result that is not text content (handed to the SDK client)', 15, 'picture', {}],
  ])('%s: the upstream gets the same request, the client the same answer, the tool runs once', async (_case, id, tool, args) => {
    const session = await openSession();
    const { direct, sdk, directReceived, sdkReceived, directRuns, sdkRuns } = await bothLegs(session, id, tool, args);
    expect(direct.status).toBe(sdk.status);
    expect(direct.type).toBe(sdk.type);
    expect(eventIdsOut(direct.text)).toBe(eventIdsOut(sdk.text));
    expect(comparable(directReceived)).toEqual(comparable(sdkReceived));
    expect(directReceived.headers['x-upstream-key']).toBe('k-1');
    expect([directRuns, sdkRuns]).toEqual([1, 1]);
  });

  it('answers with the text result, the error and the image as the upstream gave them', async () => {
    const session = await openSession();
    expect((await call(session, 1, 'echo', { text: 'plain' })).text).toContain('"text":"dual: plain"');
    const failed = await call(session, 2, 'fail', {});
    expect(failed.text).toContain('dual: no such thing');
    expect((await call(session, 3, 'picture', {})).text).toContain('"type":"image"');
  });

  it('sends a plain call without connecting the SDK client', async () => {
    const session = await openSession();
    await call(session, 1, 'echo', { text: 'warm' });
    const connect = jest.spyOn(SdkUpstreamSession.prototype as never, 'connect');
    const posted = jest.spyOn(SdkUpstreamSession.prototype as never, 'posted');
    const answer = await call(session, 2, 'echo', { text: 'fast' });
    expect(answer.text).toContain('"text":"dual: fast"');
    expect(posted).toHaveBeenCalledTimes(1);
    expect(await (posted.mock.results[0].value as Promise<unknown>)).toEqual({ content: [{ type: 'text', text: 'dual: fast' }] });
    expect(connect).not.toHaveBeenCalled();
  });

  // Node makes AbortSignals with Object.setPrototypeOf, which V8 promotes with all they reach (lazy-abort.ts).
  it('makes no AbortSignal for a plain call: the contact, its deadline and the relay stay lazy', async () => {
    const session = await openSession();
    await call(session, 1, 'echo', { text: 'warm' });
    const signals = jest.spyOn(LazyAbort.prototype, 'signal', 'get');
    const answer = await call(session, 2, 'echo', { text: 'lazy' });
    expect(answer.text).toContain('"text":"dual: lazy"');
    expect(signals).not.toHaveBeenCalled();
  });

  it("relays the upstream's elicitation mid-call to the client, through the SDK client reading the POST's answer", async () => {
    const asked: string[] = [];
    const client = new Client({ name: 'legacy-post-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => (asked.push('elicitation'), { action: 'accept', content: { name: 'Ada' } }));
    await client.connect(new StreamableHTTPClientTransport(new URL(base), { requestInit: { headers: { 'X-API-Key': key.raw } } }));
    closers.push(client);
    await client.callTool({ name: 'echo', arguments: { text: 'warm' } });
    /** One call of `ask`: its text, what the upstream received, how often its handler ran (the SDK server runs it again with the answer). */
    const ask = async () => {
      const seen = dual.requests.length;
      const runs = toolRuns();
      const events = await toolCalledEvents();
      const result = (await client.callTool({ name: 'ask', arguments: {} })) as { content: { text: string }[] };
      expect(await toolCalledEvents()).toBe(events + 1);
      // The POSTs only: a request without a body (a GET stream or a DELETE), sent on its own time, may land in the slice.
      const posts = dual.requests.slice(seen).filter((request) => request.method === 'POST');
      const sent = posts.map((request) => JSON.parse(request.body) as { method?: string });
      return { text: result.content[0].text, sent: sent.map((message) => message.method ?? 'answer'), runs: toolRuns() - runs };
    };
    const connect = jest.spyOn(SdkUpstreamSession.prototype as never, 'connect');
    const direct = await ask();
    // The SDK client read the direct POST's answer: connected with it in hand, it sent only its answer to the elicitation.
    expect(connect).toHaveBeenCalledTimes(1);
    expect((connect.mock.calls[0] as unknown[])[1]).toMatchObject({ response: expect.any(Response) });
    jest.spyOn(SdkUpstreamSession.prototype as never, 'plainCall').mockReturnValue(undefined as never);
    const sdk = await ask();
    expect(direct.text).toContain('Ada');
    expect(direct).toEqual(sdk);
    expect(direct.sent).toEqual(['tools/call', 'answer']);
    expect(asked).toEqual(['elicitation', 'elicitation']);
  });

  it('opens a fresh session once when the upstream forgot the held one, and calls the tool once', async () => {
    const session = await openSession();
    await call(session, 1, 'echo', { text: 'warm' });
    const seen = dual.requests.length;
    const runs = toolRuns();
    const events = await toolCalledEvents();
    dual.forget();
    const answer = await call(session, 2, 'echo', { text: 'again' });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"text":"dual: again"');
    const sent = dual.requests.slice(seen);
    expect(sent.map((request) => (JSON.parse(request.body) as { method: string }).method)).toEqual([
      'tools/call',
      'initialize',
      'notifications/initialized',
      'tools/call',
    ]);
    const [forgotten, , , fresh] = sent;
    expect(fresh.headers['mcp-session-id']).not.toBe(forgotten.headers['mcp-session-id']);
    expect(toolRuns() - runs).toBe(1);
    expect(await toolCalledEvents()).toBe(events + 1);
    // The fresh session is held: the next call goes to it, directly.
    const posted = jest.spyOn(SdkUpstreamSession.prototype as never, 'posted');
    expect((await call(session, 3, 'echo', { text: 'held' })).text).toContain('dual: held');
    expect(dual.requests.at(-1)!.headers['mcp-session-id']).toBe(fresh.headers['mcp-session-id']);
    expect(posted).toHaveBeenCalledTimes(1);
  });
});
