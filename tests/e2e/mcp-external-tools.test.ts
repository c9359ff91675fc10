import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { call, makeKey, rpc, TestKey } from '../support/mcp-keys';
import { connectClient, listen } from '../support/mcp-client';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

let t: TestApp;
let app: { url: string; close(): Promise<void> };
let upstream: UpstreamMcpServer;
let owner: TestKey;
const clients: Client[] = [];
const logLines: string[] = [];
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '1000' }, undefined, {
    logger: createLogger('info', new Writable({ write: (chunk, _enc, done) => (logLines.push(chunk.toString()), done()) })),
  });
  app = await listen(t.app);
  upstream = await startUpstream();
  owner = await makeKey(t);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await upstream.stop();
  await app.close();
  await t.close();
});

async function clientFor(key: TestKey): Promise<Client> {
  const client = await connectClient(app.url, { Authorization: `Bearer ${key.raw}` });
  clients.push(client);
  return client;
}
const structured = (result: unknown) => (result as CallToolResult).structuredContent as Record<string, any>;
const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

describe('external tools from registered upstream MCP servers', () => {
  let serverId: string;
  beforeAll(async () => {
    const full = await clientFor(owner);
    const created = await full.callTool({
      name: 'mcp_servers',
      arguments: {
        action: 'create',
        data: {
          name: 'files',
          url: upstream.url,
          headers: { 'X-Upstream-Token': 'sekrit' },
          tool_scopes: { secret: ['projects:write', 'chat:read'] },
        },
      },
    });
    serverId = structured(created).record.id;
  });

  it('masks header values on get and list, and keeps them on update', async () => {
    const full = await clientFor(owner);
    const got = structured(await full.callTool({ name: 'mcp_servers', arguments: { action: 'get', id: serverId } }));
    expect(got.record.data.headers).toEqual({ 'X-Upstream-Token': '********' });
    expect(JSON.stringify(structured(await full.callTool({ name: 'mcp_servers', arguments: { action: 'list' } })))).not.toContain('sekrit');
    await full.callTool({ name: 'mcp_servers', arguments: { action: 'update', id: serverId, data: { headers: got.record.data.headers } } });
    upstream.seenHeaders.length = 0;
    await full.callTool({ name: 'files__echo', arguments: { text: 'hi' } });
    expect(upstream.seenHeaders.map((h) => h['x-upstream-token'])).toContain('sekrit');
  });

  it('lists upstream tools as <name>__<tool>, filtered by tool_scopes or mcp_servers:read', async () => {
    expect(await names(await clientFor(owner))).toEqual(expect.arrayContaining(['files__echo', 'files__secret']));
    expect(await names(await clientFor(await makeKey(t, ['mcp_servers:read'], owner.user)))).toEqual(['files__echo', 'mcp_servers']);
    expect(await names(await clientFor(await makeKey(t, ['projects:write', 'chat:read'], owner.user)))).toEqual([
      'chat',
      'files__secret',
      'projects',
    ]);
    expect(await names(await clientFor(await makeKey(t, ['projects:write'], owner.user)))).toEqual(['projects']);
  });

  it('proxies calls with the configured headers and relays the upstream result', async () => {
    upstream.seenHeaders.length = 0;
    const result = await (await clientFor(owner)).callTool({ name: 'files__echo', arguments: { text: 'hello' } });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'hello' }], structuredContent: { text: 'hello' } });
    expect(upstream.seenHeaders.every((h) => h['x-upstream-token'] === 'sekrit')).toBe(true);
    expect(upstream.seenHeaders.some((h) => String(h.authorization ?? '').includes('svc_'))).toBe(false);
  });

  it('needs mcp_servers:write to call a tool without tool_scopes, and all tool_scopes for one with them', async () => {
    const reader = await makeKey(t, ['mcp_servers:read'], owner.user);
    const denied = await rpc(t, reader, call(1, 'files__echo', { text: 'x' })).expect(403);
    expect(denied.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="mcp_servers:write"');
    const half = await makeKey(t, ['projects:write'], owner.user);
    expect((await rpc(t, half, call(1, 'files__secret')).expect(403)).headers['www-authenticate']).toContain('scope="chat:read"');
    const both = await makeKey(t, ['projects:write', 'chat:read'], owner.user);
    expect((await rpc(t, both, call(1, 'files__secret')).expect(200)).body.result.structuredContent).toEqual({ text: 'the secret' });
  });

  it("does not show or run another user's upstream tools", async () => {
    const stranger = await makeKey(t);
    expect(await names(await clientFor(stranger))).not.toContain('files__echo');
    expect((await rpc(t, stranger, call(1, 'files__echo', {})).expect(200)).body.error.code).toBe(-32602);
  });

  it('refuses invalid registrations and duplicate names as tool errors', async () => {
    const full = await clientFor(owner);
    const bad = await full.callTool({
      name: 'mcp_servers',
      arguments: { action: 'create', data: { name: 'Bad Name', url: 'ftp://x', tool_scopes: { a: ['nope'] } } },
    });
    expect(bad).toMatchObject({ isError: true });
    expect((bad as CallToolResult).content[0]).toMatchObject({ text: expect.stringMatching(/data.name.*data.url.*tool_scopes.a\[0\]/s) });
    const dup = await full.callTool({ name: 'mcp_servers', arguments: { action: 'create', data: { name: 'files', url: upstream.url } } });
    expect(dup).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/already exists/) }] });
  });

  it('drops only the tools of a slow or stopped upstream from the list', async () => {
    const slow = await startUpstream();
    const gone = await startUpstream();
    await gone.stop();
    try {
      const user = await makeKey(t);
      const client = await clientFor(user);
      slow.delayMs = 3000;
      for (const [name, url] of [
        ['fast', upstream.url],
        ['slow', slow.url],
        ['gone', gone.url],
      ]) {
        await client.callTool({ name: 'mcp_servers', arguments: { action: 'create', data: { name, url } } });
      }
      expect((await names(client)).filter((n) => n.includes('__'))).toEqual(['fast__echo', 'fast__secret']);
      expect(await client.callTool({ name: 'slow__echo', arguments: {} })).toMatchObject({ isError: true });
      expect(await client.callTool({ name: 'gone__echo', arguments: {} })).toMatchObject({ isError: true });
      expect(await client.callTool({ name: 'fast__echo', arguments: { text: 'still' } })).toMatchObject({
        structuredContent: { text: 'still' },
      });
      expect(logLines.some((line) => /MCP server slow .* left out of tools\/list/.test(line))).toBe(true);
      expect(logLines.some((line) => /MCP server gone .* left out of tools\/list/.test(line))).toBe(true);
    } finally {
      await slow.stop();
    }
  });
});

describe('outbound address policy', () => {
  it('refuses loopback upstreams without MCP_UPSTREAM_ALLOWLIST, telling the caller only "upstream address not allowed"', async () => {
    const lines: string[] = [];
    const strict = await startTestApp({}, undefined, {
      logger: createLogger('info', new Writable({ write: (chunk, _enc, done) => (lines.push(chunk.toString()), done()) })),
    });
    try {
      const key = await makeKey(strict);
      const port = new URL(upstream.url).port;
      // NAT64, IPv4-compatible, IPv4-mapped and 6to4 forms of 127.0.0.1, and a name that resolves to it.
      const hosts = ['127.0.0.1', '[64:ff9b::7f00:1]', '[::127.0.0.1]', '[::ffff:127.0.0.1]', '[2002:7f00:1::]', 'localhost'];
      for (const [i, host] of hosts.entries()) {
        const data = { name: `local-${i}`, url: `http://${host}:${port}/mcp` };
        await rpc(strict, key, call(1, 'mcp_servers', { action: 'create', data })).expect(200);
        const res = await rpc(strict, key, call(2, `local-${i}__echo`, { text: 'x' })).expect(200);
        expect(res.body.result).toEqual({ isError: true, content: [{ type: 'text', text: 'upstream address not allowed' }] });
      }
      upstream.seenHeaders.length = 0;
      const list = await rpc(strict, key, { jsonrpc: '2.0', id: 3, method: 'tools/list' }).expect(200);
      expect(list.body.result.tools.map((tool: { name: string }) => tool.name).filter((n: string) => n.includes('__'))).toEqual([]);
      expect(upstream.seenHeaders).toEqual([]);
      expect(
        lines.some((line) => /MCP server local-5 .*upstream address not allowed.*localhost resolves to (127\.0\.0\.1|::1)/.test(line)),
      ).toBe(true);
    } finally {
      await strict.close();
    }
  });
});
