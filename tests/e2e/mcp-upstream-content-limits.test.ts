import { Writable } from 'node:stream';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { call, makeKey, rpc, TestKey } from '../support/mcp-keys';
import { RawUpstream, RawUpstreamMode, startRawUpstream } from '../support/raw-upstream';
import { startTestApp, TestApp } from '../support/test-app';

/** The upstream limits (MCP_UPSTREAM_MAX_BYTES, MCP_UPSTREAM_MAX_PAGES, the list TTL) hold for resources as for tools. */
const MiB = 1024 * 1024;
let t: TestApp;
const upstreams: RawUpstream[] = [];
const logLines: string[] = [];
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '5000' }, undefined, {
    logger: createLogger('info', new Writable({ write: (chunk, _enc, done) => (logLines.push(chunk.toString()), done()) })),
  });
});
afterAll(async () => {
  await Promise.all(upstreams.map((u) => u.stop()));
  await t.close();
});

async function registered(key: TestKey, name: string, mode: RawUpstreamMode): Promise<RawUpstream> {
  const started = await startRawUpstream(mode);
  upstreams.push(started);
  await rpc(t, key, call(1, 'mcp_servers', { action: 'create', data: { name, url: started.url } })).expect(200);
  return started;
}
const message = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, method, params });

describe('upstream resources past a limit', () => {
  it('answers a resources/read whose reply passes MCP_UPSTREAM_MAX_BYTES with a -32000 naming the limit, reading no further', async () => {
    const owner = await makeKey(t);
    const server = await registered(owner, 'big', 'huge-read');
    const res = await rpc(t, owner, message('resources/read', { uri: 'keygate://big/mem://big' })).expect(200);
    expect(res.body.error).toEqual({ code: -32000, message: 'upstream reply over MCP_UPSTREAM_MAX_BYTES (1048576 bytes)' });
    expect(server.hugeBytesSent).toBeLessThan(24 * MiB);
    expect(Buffer.byteLength(res.text)).toBeLessThan(1024);
  });

  it('leaves an upstream whose resources/list passes MCP_UPSTREAM_MAX_PAGES out of the list (logged), and does not ask again within the TTL', async () => {
    const owner = await makeKey(t);
    const endless = await registered(owner, 'endless', 'endless-resources');
    await registered(owner, 'big', 'huge-read');
    const first = await rpc(t, owner, message('resources/list')).expect(200);
    expect(first.body.result).toEqual({ resources: [{ uri: 'keygate://big/mem://big', name: 'big' }] });
    expect(endless.requests['resources/list']).toBe(10);
    expect(logLines.join('')).toContain('still had a next page after 10');
    await rpc(t, owner, message('resources/list')).expect(200);
    expect(endless.requests['resources/list']).toBe(10);
    // One probe of its revision (server/discover, then initialize) and one contact, both in the first request.
    expect(endless.requests['server/discover']).toBe(1);
    expect(endless.requests.initialize).toBe(2);
  });
});
