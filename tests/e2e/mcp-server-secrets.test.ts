import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { call, makeKey, rpc, TestKey } from '../support/mcp-keys';
import { tablesContaining } from '../support/plaintext-scan';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

let t: TestApp;
let upstream: UpstreamMcpServer;
let elsewhere: UpstreamMcpServer;
let owner: TestKey;
const logLines: string[] = [];
const token = `tok-${randomBytes(12).toString('hex')}`;
const secret = `Bearer ${token}`;
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8' }, undefined, {
    logger: createLogger('trace', new Writable({ write: (chunk, _enc, done) => (logLines.push(chunk.toString()), done()) })),
  });
  [upstream, elsewhere] = [await startUpstream(), await startUpstream()];
  owner = await makeKey(t);
});
afterAll(async () => {
  await upstream.stop();
  await elsewhere.stop();
  await t.close();
});

/** tools/call of the built-in mcp_servers tool; the JSON-RPC result. */
async function servers(key: TestKey, args: Record<string, unknown>) {
  return (await rpc(t, key, call(1, 'mcp_servers', args)).expect(200)).body.result;
}
const register = async (name: string, url = upstream.url) =>
  (await servers(owner, { action: 'create', data: { name, url, headers: { Authorization: secret } } })).structuredContent.record.id as string;
const authorizationsAt = (server: UpstreamMcpServer) => server.seenHeaders.map((h) => h.authorization);

describe('upstream header values', () => {
  it('cannot be found by a read-only key through search or query', async () => {
    await register('vault');
    const reader = await makeKey(t, ['mcp_servers:read'], owner.user);
    for (const text of [token, token.slice(0, 5), 'Bearer', 'Authorization', 'v1:']) {
      expect((await servers(reader, { action: 'search', data: { text } })).structuredContent).toEqual({ records: [] });
    }
    for (const where of [{ headers: { Authorization: secret } }, { headers: {} }]) {
      expect((await servers(reader, { action: 'query', data: { where } })).structuredContent).toEqual({ records: [] });
    }
    const listed = await servers(reader, { action: 'list' });
    expect(listed.structuredContent.records[0].data.headers).toEqual({ Authorization: '********' });
    expect(JSON.stringify(listed)).not.toContain(token);
  });

  it('still reach the upstream they were registered for', async () => {
    upstream.seenHeaders.length = 0;
    await rpc(t, owner, call(2, 'vault__echo', { text: 'hi' })).expect(200);
    expect(authorizationsAt(upstream)).toContain(secret);
  });

  it('are dropped when an update moves the url to another origin, the mask included', async () => {
    const moved = await register('moved');
    const masked = await register('masked');
    const plain = await servers(owner, { action: 'update', id: moved, data: { url: elsewhere.url } });
    expect(plain.structuredContent.record.data.headers).toBeUndefined();
    const withMask = await servers(owner, { action: 'update', id: masked, data: { url: elsewhere.url, headers: { Authorization: '********' } } });
    expect(withMask.structuredContent.record.data.headers).toEqual({});
    for (const [i, name] of ['moved__echo', 'masked__echo'].entries()) {
      expect((await rpc(t, owner, call(3 + i, name, { text: 'x' })).expect(200)).body.result.isError).toBeFalsy();
    }
    expect(elsewhere.seenHeaders.length).toBeGreaterThan(0);
    expect(authorizationsAt(elsewhere).filter((a) => a !== undefined)).toEqual([]);
  });

  it('appear in no table and no log line', async () => {
    expect(await tablesContaining(t.db.dataSource, token)).toEqual([]);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.filter((line) => line.includes(token))).toEqual([]);
  });
});

describe('MAX_MCP_SERVERS_PER_USER', () => {
  const create = (key: TestKey, name: string) => servers(key, { action: 'create', data: { name, url: upstream.url } });

  it('refuses the 21st server clearly and writes nothing', async () => {
    const user = await makeKey(t);
    for (let i = 0; i < 20; i += 1) expect((await create(user, `s${i}`)).isError).toBeFalsy();
    const refused = await create(user, 's20');
    expect(refused).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/already have 20 MCP servers.*MAX_MCP_SERVERS_PER_USER/) }] });
    expect((await servers(user, { action: 'list' })).structuredContent.records).toHaveLength(20);
    expect((await servers(user, { action: 'query', data: { where: { name: 's20' } } })).structuredContent.records).toEqual([]);
  });

  it('holds when the creates race', async () => {
    const user = await makeKey(t);
    const results = await Promise.all(Array.from({ length: 26 }, (_, i) => create(user, `r${i}`)));
    expect(results.filter((r) => !r.isError)).toHaveLength(20);
    expect((await servers(user, { action: 'list' })).structuredContent.records).toHaveLength(20);
  });
});
