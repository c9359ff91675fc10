import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { UsageFlusher } from '../../src/application/use-cases/usage/usage-flusher';
import { call, makeKey, rpc, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

jest.setTimeout(90_000);

/**
 * Every tools/call is counted under its outcome, on the paths that answer it,
 * and shows in GET /api/v1/usage after a flush and in /metrics at once.
 */
let t: TestApp;
let upstream: UpstreamMcpServer;
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '2000' });
  upstream = await startUpstream();
});
afterAll(async () => {
  await upstream?.stop();
  await t?.close();
});

const flush = () => t.container.get(UsageFlusher).flush();

async function usage(key: TestKey, groupBy: 'outcome' | 'tool' = 'outcome'): Promise<[string, number][]> {
  await flush();
  const res = await request(t.app)
    .get('/api/v1/usage')
    .query({ key_id: key.id, group_by: groupBy, bucket: 'minute', from: new Date(Date.now() - 3_600_000).toISOString() })
    .set('Authorization', `Bearer ${t.userToken(key.user)}`)
    .expect(200);
  return res.body.series.map((s: any) => [s.group, s.total.count]);
}

async function keyWith(user: string, body: Record<string, unknown>): Promise<TestKey> {
  const res = await request(t.app)
    .post('/api/v1/api-keys')
    .set('Authorization', `Bearer ${t.userToken(user)}`)
    .send({ name: 'limited', scopes: [], ...body })
    .expect(201);
  return { id: res.body.id, raw: res.body.raw_key, user };
}

describe('usage recording', () => {
  it('counts a built-in call that ran, and one whose tool answered isError, as called, by tool', async () => {
    const key = await makeKey(t);
    expect(
      (await rpc(t, key, call(1, 'projects', { action: 'create', data: { name: 'a' } })).expect(200)).body.result.isError,
    ).toBeUndefined();
    expect((await rpc(t, key, call(2, 'projects', { action: 'get', id: randomUUID() })).expect(200)).body.result.isError).toBe(true);
    expect(await usage(key)).toEqual([['called', 2]]);
    expect(await usage(key, 'tool')).toEqual([['projects', 2]]);
  });

  it('counts a scope refusal as denied, and an unknown tool as denied under `other`', async () => {
    const key = await makeKey(t, ['projects:read']);
    await rpc(t, key, call(1, 'projects', { action: 'create', data: { name: 'a' } })).expect(403);
    await rpc(t, key, call(2, `no_such_tool_${randomUUID()}`)).expect(200);
    expect(await usage(key)).toEqual([['denied', 2]]);
    expect((await usage(key, 'tool')).sort()).toEqual([
      ['other', 1],
      ['projects', 1],
    ]);
  });

  it('counts a rate-limited request as rate_limited under tool ""', async () => {
    const key = await keyWith(randomUUID(), { rate_limit: { limit: 1, window_seconds: 3600 } });
    await rpc(t, key, call(1, 'projects', { action: 'list' })).expect(200);
    await rpc(t, key, call(2, 'projects', { action: 'list' })).expect(429);
    expect((await usage(key)).sort()).toEqual([
      ['called', 1],
      ['rate_limited', 1],
    ]);
    expect((await usage(key, 'tool')).sort()).toEqual([
      ['', 1],
      ['projects', 1],
    ]);
  });

  it('counts each tools/call of a POST the quota cannot pay for as quota_exhausted', async () => {
    const key = await keyWith(randomUUID(), { quota: { remaining: 1, refill: null } });
    await rpc(t, key, call(1, 'projects', { action: 'list' })).expect(200);
    await rpc(t, key, [call(2, 'projects', { action: 'list' }), call(3, 'projects', { action: 'list' })]).expect(429);
    expect((await usage(key)).sort()).toEqual([
      ['called', 1],
      ['quota_exhausted', 2],
    ]);
  });

  it('counts a call whose upstream is gone as upstream_error, and one of a tool the upstream lacks as denied', async () => {
    const gone = await startUpstream('gone');
    const key = await makeKey(t);
    await rpc(t, key, call(1, 'mcp_servers', { action: 'create', data: { name: 'gone', url: gone.url } })).expect(200);
    expect((await rpc(t, key, call(2, 'gone__echo', { text: 'hi' })).expect(200)).body.result.isError).toBeUndefined();
    // A name the upstream does not list is kept from it: denied, under `other` (the caller chose the name).
    expect((await rpc(t, key, call(3, `gone__nope_${randomUUID()}`)).expect(200)).body.result.isError).toBe(true);
    await gone.stop();
    expect((await rpc(t, key, call(3, 'gone__echo', { text: 'hi' })).expect(200)).body.result.isError).toBe(true);
    expect((await usage(key)).sort()).toEqual([
      ['called', 2],
      ['denied', 1],
      ['upstream_error', 1],
    ]);
    expect((await usage(key, 'tool')).sort()).toEqual([
      ['gone__echo', 2],
      ['mcp_servers', 1],
      ['other', 1],
    ]);
  });

  it('counts 2026-07-28 calls and calls on /mcp/servers/<name> under the tool name /mcp audits', async () => {
    const files = await startUpstream('files');
    try {
      const key = await makeKey(t);
      await rpc(t, key, call(1, 'mcp_servers', { action: 'create', data: { name: 'files', url: files.url } })).expect(200);
      const V = '2026-07-28';
      const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
      const modern = (path: string, name: string) =>
        request(t.app)
          .post(path)
          .set('Content-Type', 'application/json')
          .set('Accept', 'application/json, text/event-stream')
          .set('Authorization', `Bearer ${key.raw}`)
          .set('MCP-Protocol-Version', V)
          .set('Mcp-Method', 'tools/call')
          .set('Mcp-Name', name)
          .send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: { text: 'hi' }, _meta: meta } }))
          .expect(200);
      await modern('/mcp', 'files__echo');
      await modern('/mcp', 'projects');
      await modern('/mcp/servers/files', 'echo');
      expect((await usage(key, 'tool')).sort()).toEqual([
        ['files__echo', 2],
        ['mcp_servers', 1],
        ['projects', 1],
      ]);
    } finally {
      await files.stop();
    }
  });

  it('shows per-tool series in /metrics, an unknown tool as other', async () => {
    const res = await request(t.app).get('/metrics').expect(200);
    expect(res.text).toMatch(/keygate_tool_calls_total\{tool="projects",outcome="called"\} [1-9]/);
    expect(res.text).toMatch(/keygate_tool_calls_total\{tool="other",outcome="denied"\} [1-9]/);
    expect(res.text).toMatch(/keygate_tool_call_duration_seconds_count\{tool="projects"\} [1-9]/);
    expect(res.text).not.toContain('no_such_tool_');
    expect(res.text).not.toContain('gone__nope_');
  });
});
