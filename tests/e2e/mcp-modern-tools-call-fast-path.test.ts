import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { ModernToolsCallFastPath } from '../../src/adapters/mcp/modern/modern-tools-call-fast-path';
import { makeKey, rpc, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

jest.setTimeout(60_000);

/**
 * A 2026-07-28 tools/call of a built-in tool is run without the SDK v2 when
 * it can be; the answer must be the SDK leg's, byte for byte, with one audit
 * event either way. Each request is sent twice: once as it comes (the fast
 * path answers it) and once with the fast path declining, so that the SDK leg
 * answers the very same request.
 */
const V = '2026-07-28';
let t: TestApp;
let upstream: UpstreamMcpServer;
let key: TestKey;
let projectId: string;
let fast: ModernToolsCallFastPath;
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '2000' });
  upstream = await startUpstream('one');
  key = await makeKey(t);
  const created = await rpc(t, key, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'projects', arguments: { action: 'create', data: { name: 'fast "path" ü', tags: ['a', 'b'] } } },
  }).expect(200);
  projectId = created.body.result.structuredContent.record.id;
  await rpc(t, key, {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'projects', arguments: { action: 'create', subresource: 'members', id: projectId, data: { user: 'x' } } },
  }).expect(200);
  await rpc(t, key, {
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'mcp_servers', arguments: { action: 'create', data: { name: 'files', url: upstream.url } } },
  }).expect(200);
  fast = t.container.get(ModernToolsCallFastPath);
});
afterAll(async () => {
  await upstream?.stop();
  await t?.close();
});
afterEach(() => jest.restoreAllMocks());

const envelope = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
function post(
  id: unknown,
  name: string,
  args: Record<string, unknown> | undefined,
  accept = 'application/json, text/event-stream',
  k = key,
) {
  return request(t.app)
    .post('/mcp')
    .set('Content-Type', 'application/json')
    .set('Accept', accept)
    .set('X-API-Key', k.raw)
    .set('MCP-Protocol-Version', V)
    .set('Mcp-Method', 'tools/call')
    .set('Mcp-Name', name)
    .send(
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, ...(args && { arguments: args }), _meta: envelope } }),
    );
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

/** The call answered by the fast path, then by the SDK leg; whether the fast path served the first. */
async function bothPaths(id: unknown, name: string, args?: Record<string, unknown>) {
  const spy = jest.spyOn(fast, 'tryServe');
  const before = spy.mock.results.length;
  const first = await post(id, name, args);
  const served = spy.mock.results.length === before + 1 && (await spy.mock.results[before].value) === true;
  spy.mockResolvedValueOnce(false);
  const sdk = await post(id, name, args);
  return { first, sdk, served };
}

describe('a 2026-07-28 call of a built-in tool answered without the SDK v2', () => {
  it.each([
    ['get, number id', 7, 'projects', () => ({ action: 'get', id: projectId })],
    ['get, string id', 'req-"ü"-1', 'projects', () => ({ action: 'get', id: projectId })],
    ['get, id 0', 0, 'projects', () => ({ action: 'get', id: projectId })],
    ['list', 3, 'projects', () => ({ action: 'list' })],
    ['list of a subresource', 4, 'projects', () => ({ action: 'list', subresource: 'members', id: projectId })],
    ['a record that is not there (tool error)', 5, 'projects', () => ({ action: 'get', id: randomUUID() })],
    ['an action the tool does not have (tool error)', 6, 'projects', () => ({ action: 'explode' })],
    ['no arguments', 8, 'projects', () => undefined],
    ['a tool that does not exist', 'x', 'no_such_tool', () => ({ action: 'get' })],
  ])('%s: the same status, headers and bytes as the SDK leg, one tool.called event each', async (_name, id, tool, args) => {
    const events = await toolCalledEvents();
    const { first, sdk, served } = await bothPaths(id, tool, args());
    expect(served).toBe(true);
    expect(first.status).toBe(sdk.status);
    expect(headersOf(first)).toEqual(headersOf(sdk));
    expect(first.text).toBe(sdk.text);
    expect(first.headers['content-type']).toBe('application/json');
    expect(Number(first.headers['content-length'])).toBe(Buffer.byteLength(first.text));
    expect(JSON.parse(first.text).id).toBe(id);
    if (tool === 'no_such_tool') {
      expect(JSON.parse(first.text).error).toMatchObject({ code: -32602 });
    } else {
      expect(JSON.parse(first.text).result.resultType).toBe('complete');
      expect(await toolCalledEvents()).toBe(events + 2);
    }
  });

  it('leaves an upstream tool, an SSE-only client and a retry to the SDK leg', async () => {
    const spy = jest.spyOn(fast, 'tryServe');
    const upstreamCall = await post(1, 'files__echo', { text: 'hi' }).expect(200);
    expect(upstreamCall.body.result.content[0].text).toContain('hi');
    const sse = await post(2, 'projects', { action: 'get', id: projectId }, 'text/event-stream').expect(200);
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
    const retry = await request(t.app)
      .post('/mcp')
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json')
      .set('X-API-Key', key.raw)
      .set('MCP-Protocol-Version', V)
      .set('Mcp-Method', 'tools/call')
      .set('Mcp-Name', 'projects')
      .send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'projects', arguments: { action: 'list' }, inputResponses: {}, _meta: envelope },
        }),
      );
    expect(retry.status).toBeLessThan(500);
    for (const result of spy.mock.results) expect(await result.value).toBe(false);
    expect(spy).toHaveBeenCalledTimes(3);
  });

  it('keeps the gates first: a call the key may not make is 403 before the fast path is asked', async () => {
    const narrow = await makeKey(t, ['agents:read'], key.user);
    const spy = jest.spyOn(fast, 'tryServe');
    const res = await post('f', 'projects', { action: 'list' }, undefined, narrow);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ id: 'f', error: { code: -32003 } });
    expect(spy).not.toHaveBeenCalled();
  });
});
