import request from 'supertest';
import { ModernToolsListFastPath } from '../../src/adapters/mcp/modern/modern-tools-list-fast-path';
import { makeKey, rpc, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

jest.setTimeout(60_000);

/**
 * A 2026-07-28 tools/list is answered without the SDK v2 when it can be; the
 * answer must be the SDK leg's, byte for byte. Each request is sent twice:
 * once as it comes (the fast path answers it) and once with the fast path
 * declining, so that the SDK leg (createMcpHandler) answers the very same request.
 */
const V = '2026-07-28';
let t: TestApp;
let upstream: UpstreamMcpServer;
let owner: TestKey;
let fast: ModernToolsListFastPath;
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '2000' });
  upstream = await startUpstream('one');
  owner = await makeKey(t);
  const created = await rpc(t, owner, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'mcp_servers',
      arguments: { action: 'create', data: { name: 'files', url: upstream.url, tool_scopes: { secret: ['chat:read'] } } },
    },
  }).expect(200);
  expect(created.text).not.toContain('"isError":true');
  fast = t.container.get(ModernToolsListFastPath);
});
afterAll(async () => {
  await upstream?.stop();
  await t?.close();
});
afterEach(() => jest.restoreAllMocks());

const envelope = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});
function post(path: string, key: TestKey, id: unknown, params: Record<string, unknown>, headers: Record<string, string> = {}) {
  return request(t.app)
    .post(path)
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream')
    .set('Authorization', `Bearer ${key.raw}`)
    .set('MCP-Protocol-Version', V)
    .set('Mcp-Method', 'tools/list')
    .set(headers)
    .send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params }));
}

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

/** The request answered by the fast path, then by the SDK leg; whether the fast path served the first. */
async function bothPaths(path: string, key: TestKey, id: unknown, params: Record<string, unknown>, headers?: Record<string, string>) {
  const spy = jest.spyOn(fast, 'tryServe');
  const before = spy.mock.results.length;
  const first = await post(path, key, id, params, headers);
  const served = spy.mock.results.length === before + 1 && (await spy.mock.results[before].value) === true;
  spy.mockResolvedValueOnce(false);
  const sdk = await post(path, key, id, params, headers);
  return { first, sdk, served };
}

describe('a 2026-07-28 tools/list answered without the SDK v2', () => {
  it.each([
    ['/mcp', [], 7, {}],
    ['/mcp', ['projects:read', 'agents:write'], 'a string id', {}],
    ['/mcp', [], 0, { agent_scopes: ['chat:write'] }],
    ['/mcp', ['agents:write'], -3, { agent_scopes: ['agents:read', 'models:read'] }],
    ['/mcp', ['chat:read'], 12, {}],
    ['/mcp/servers/files', [], 8, {}],
    ['/mcp/servers/files', ['chat:read'], 'x', {}],
    ['/mcp/servers/files', ['projects:read'], 9, {}],
  ])('on %s, scopes %j, id %j, params %j: the same status, headers and bytes as the SDK leg', async (path, scopes, id, params) => {
    const key = await makeKey(t, scopes, owner.user);
    const meta = { _meta: envelope({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }) };
    const { first, sdk, served } = await bothPaths(path, key, id, { ...params, ...meta });
    expect(served).toBe(true);
    expect(first.status).toBe(200);
    expect(first.status).toBe(sdk.status);
    expect(headersOf(first)).toEqual(headersOf(sdk));
    expect(first.text).toBe(sdk.text);
    expect(Number(first.headers['content-length'])).toBe(Buffer.byteLength(first.text));
    expect(first.headers['content-type']).toBe('application/json');
    const answer = JSON.parse(first.text);
    expect(answer).toMatchObject({ id, result: { resultType: 'complete', ttlMs: 0, cacheScope: 'private' } });
    expect(answer.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe(path === '/mcp' ? 'keygate' : 'keygate/files');
    return answer.result.tools as { name: string }[];
  });

  it("lists what each key may see on an upstream's endpoint", async () => {
    const names = async (scopes: string[]) => {
      const key = await makeKey(t, scopes, owner.user);
      const { first, served } = await bothPaths('/mcp/servers/files', key, 1, { _meta: envelope() });
      expect(served).toBe(true);
      return (JSON.parse(first.text).result.tools as { name: string }[]).map((tool) => tool.name).sort();
    };
    // An upstream tool without tool_scopes asks for the mcp_servers scopes.
    expect(await names(['chat:read'])).toEqual(['secret']);
    expect(await names(['projects:read'])).toEqual([]);
    expect(await names([])).toEqual(['echo', 'secret']);
  });

  it.each([
    ['a cursor (never issued)', { cursor: 'abc' }],
    ['an unknown agent scope', { agent_scopes: ['nope'] }],
  ])('leaves %s to the SDK leg, which answers -32602 with the id', async (_name, params) => {
    const { first, sdk, served } = await bothPaths('/mcp', owner, 'c', { ...params, _meta: envelope() });
    expect(served).toBe(false);
    expect(first.text).toBe(sdk.text);
    expect(JSON.parse(first.text)).toMatchObject({ id: 'c', error: { code: -32602 } });
  });

  it('answers an SSE-only client through the SDK leg, the same message in one event', async () => {
    const spy = jest.spyOn(fast, 'tryServe');
    const json = await post('/mcp', owner, 5, { _meta: envelope() }).expect(200);
    const sse = await post('/mcp', owner, 5, { _meta: envelope() }, { Accept: 'text/event-stream' }).expect(200);
    expect(await spy.mock.results[1].value).toBe(false);
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(/^data: (.*)$/m.exec(sse.text)![1]).toBe(json.text);
  });

  it.each([
    ['Mcp-Method naming another method', { 'Mcp-Method': 'tools/call' }, { _meta: envelope() }, 400, -32020],
    ['no clientCapabilities in _meta', {}, { _meta: { 'io.modelcontextprotocol/protocolVersion': V } }, 400, -32602],
    [
      'an unsupported revision',
      { 'MCP-Protocol-Version': '2099-01-01' },
      { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) },
      400,
      -32022,
    ],
  ])('keeps the era gate first: %s is refused before the fast path', async (_name, headers, params, status, code) => {
    const spy = jest.spyOn(fast, 'tryServe');
    const res = await post('/mcp', owner, 'g', params, headers);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ id: 'g', error: { code } });
    expect(spy).not.toHaveBeenCalled();
  });
});
