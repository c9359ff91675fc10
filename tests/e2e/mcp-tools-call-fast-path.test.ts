import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { makeKey, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

let t: TestApp;
let upstream: UpstreamMcpServer;
let key: TestKey;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '2000' });
  upstream = await startUpstream();
  key = await makeKey(t);
  const created = await post(
    key,
    'application/json',
    call(1, 'projects', { action: 'create', data: { name: 'fast "path" ü', tags: ['a', 'b'] } }),
  );
  projectId = JSON.parse(created.body).result.structuredContent.record.id;
  await post(
    key,
    'application/json',
    call(2, 'projects', { action: 'create', subresource: 'members', id: projectId, data: { user: 'x' } }),
  );
});
afterAll(async () => {
  await upstream.stop();
  await t.close();
});

const JSON_ACCEPT = 'application/json, text/event-stream';
const SSE_ACCEPT = 'text/event-stream';

function call(id: string | number, name: string, args?: Record<string, unknown>) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, ...(args && { arguments: args }) } };
}

function post(k: TestKey, accept: string, body: unknown, headers: Record<string, string> = {}) {
  return request(t.app)
    .post('/mcp')
    .set('Content-Type', 'application/json')
    .set('Accept', accept)
    .set('X-API-Key', k.raw)
    .set(headers)
    .buffer(true)
    .parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    })
    .send(JSON.stringify(body));
}

/** The headers that say nothing about the answer: this request's own, and how its length is framed. */
const FRAMING = new Set(['date', 'x-request-id', 'content-length', 'transfer-encoding']);
const answerHeaders = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !FRAMING.has(name)));

/**
 * The same call twice: alone (the fast path) and as a batch of one, which the
 * fast path leaves to the SDK server, whose transport answers a batch of one
 * with the lone message, not an array. The SDK streams chunked; the fast path
 * sends a Content-Length, which is how each shows who answered.
 */
async function bothPaths(message: ReturnType<typeof call>, accept: string, headers: Record<string, string> = {}) {
  const fast = await post(key, accept, message, headers);
  const sdk = await post(key, accept, [message], headers);
  expect(fast.headers['content-length']).toBe(String(Buffer.byteLength(fast.body as string)));
  expect(fast.headers['transfer-encoding']).toBeUndefined();
  expect(sdk.headers['transfer-encoding']).toBe('chunked');
  return { fast, sdk };
}

describe('tools/call of a built-in tool answered without the SDK server', () => {
  const missing = randomUUID();
  const cases: [string, () => ReturnType<typeof call>][] = [
    ['get, number id', () => call(7, 'projects', { action: 'get', id: projectId })],
    ['get, string id', () => call('req-"ü"-1', 'projects', { action: 'get', id: projectId })],
    ['get, id 0', () => call(0, 'projects', { action: 'get', id: projectId })],
    ['list', () => call(3, 'projects', { action: 'list' })],
    ['list of a subresource', () => call(4, 'projects', { action: 'list', subresource: 'members', id: projectId })],
    ['a record that is not there (tool error)', () => call(5, 'projects', { action: 'get', id: missing })],
    ['an action the tool does not have (tool error)', () => call(6, 'projects', { action: 'explode' })],
    ['no arguments (tool error)', () => call(8, 'projects')],
    ['a tool that does not exist (-32602)', () => call('x', 'no_such_tool', { action: 'get' })],
    ['an upstream-style name that does not exist (-32602)', () => call(9, 'nothere__echo', {})],
  ];

  it.each(cases)("gives the SDK server's bytes for %s, as JSON and as SSE", async (_name, message) => {
    for (const accept of [JSON_ACCEPT, SSE_ACCEPT]) {
      const { fast, sdk } = await bothPaths(message(), accept);
      expect(fast.status).toBe(sdk.status);
      expect(answerHeaders(fast.headers)).toEqual(answerHeaders(sdk.headers));
      expect(fast.body).toBe(sdk.body);
    }
  });

  it('answers in the JSON the SDK sends: result first, then jsonrpc and id', async () => {
    const { fast } = await bothPaths(call(11, 'projects', { action: 'get', id: projectId }), JSON_ACCEPT);
    expect(fast.headers['content-type']).toBe('application/json');
    expect(fast.body).toMatch(
      /^\{"result":\{"content":\[\{"type":"text","text":".*\}\],"structuredContent":\{"record":\{.*\}\},"jsonrpc":"2\.0","id":11\}$/,
    );
    const sse = await post(key, SSE_ACCEPT, call(12, 'projects', { action: 'get', id: projectId }));
    expect(sse.headers['content-type']).toBe('text/event-stream');
    expect(sse.headers['cache-control']).toBe('no-cache, no-transform');
    expect(sse.body).toMatch(/^event: message\ndata: \{"result":.*"id":12\}\n\n$/);
  });

  it('gives the same bytes with a supported MCP-Protocol-Version, and leaves an unsupported one to the SDK (400)', async () => {
    const message = call(13, 'projects', { action: 'get', id: projectId });
    const { fast, sdk } = await bothPaths(message, JSON_ACCEPT, { 'MCP-Protocol-Version': '2025-06-18' });
    expect(fast.body).toBe(sdk.body);
    const refused = await post(key, JSON_ACCEPT, message, { 'MCP-Protocol-Version': '1999-01-01' });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error.message).toContain('Unsupported protocol version');
  });

  it('runs a write once per call, and answers it as the SDK would, records aside', async () => {
    const before = await countRecords();
    const message = call(14, 'projects', { action: 'create', data: { name: 'w' } });
    const { fast, sdk } = await bothPaths(message, JSON_ACCEPT);
    expect(await countRecords()).toBe(before + 2);
    const shape = (text: string) => text.replace(/[0-9a-f-]{36}/g, 'ID').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'AT');
    expect(shape(fast.body as string)).toBe(shape(sdk.body as string));
  });

  it('leaves params with _meta, batches and notifications to the SDK server', async () => {
    const withMeta = {
      ...call(15, 'projects', { action: 'get', id: projectId }),
      params: { name: 'projects', arguments: { action: 'get', id: projectId }, _meta: { progressToken: 1 } },
    };
    const meta = await post(key, JSON_ACCEPT, withMeta);
    expect(meta.headers['transfer-encoding']).toBe('chunked');
    expect(JSON.parse(meta.body).result.structuredContent.record.id).toBe(projectId);
    const notification = { jsonrpc: '2.0', method: 'tools/call', params: { name: 'projects', arguments: { action: 'list' } } };
    expect((await post(key, JSON_ACCEPT, notification)).status).toBe(202);
  });

  it("leaves a call of an upstream server's tool to the SDK server", async () => {
    const owner = await makeKey(t);
    await post(owner, JSON_ACCEPT, call(1, 'mcp_servers', { action: 'create', data: { name: 'files', url: upstream.url } })).expect(200);
    const res = await post(owner, JSON_ACCEPT, call(2, 'files__echo', { text: 'hi' })).expect(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(JSON.parse(res.body).result.content[0].text).toContain('hi');
  });
});

async function countRecords(): Promise<number> {
  const [{ count }] = await t.db.dataSource.query('SELECT count(*)::int AS count FROM resource_records WHERE user_id = $1', [key.user]);
  return count;
}
