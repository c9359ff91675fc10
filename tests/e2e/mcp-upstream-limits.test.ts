import { Writable } from 'node:stream';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { call, makeKey, rpc, TestKey } from '../support/mcp-keys';
import { RawUpstream, RawUpstreamMode, startRawUpstream } from '../support/raw-upstream';
import { startTestApp, TestApp } from '../support/test-app';

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

async function upstream(mode: RawUpstreamMode): Promise<RawUpstream> {
  const started = await startRawUpstream(mode);
  upstreams.push(started);
  return started;
}
async function register(key: TestKey, name: string, url: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await rpc(t, key, call(1, 'mcp_servers', { action: 'create', data: { name, url, ...extra } })).expect(200);
  return res.body.result.structuredContent.record.id;
}
const toolsList = (id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
async function externalNames(key: TestKey): Promise<string[]> {
  const res = await rpc(t, key, toolsList()).expect(200);
  return res.body.result.tools
    .map((tool: { name: string }) => tool.name)
    .filter((name: string) => name.includes('__'))
    .sort();
}
async function callText(key: TestKey, name: string): Promise<{ isError?: boolean; text: string }> {
  const res = await rpc(t, key, call(2, name, {})).expect(200);
  return { isError: res.body.result.isError, text: res.body.result.content[0].text };
}

describe('upstream replies past a limit', () => {
  it('drop that upstream from tools/list (logged, the rest intact) and make its calls tool errors', async () => {
    const owner = await makeKey(t);
    const good = await upstream('plain');
    const hostile = {
      json: await upstream('huge-list-json'),
      sse: await upstream('huge-list-sse'),
      init: await upstream('huge-initialize'),
      endless: await upstream('endless-pages'),
      many: await upstream('many-tools'),
    };
    await register(owner, 'good', good.url);
    for (const [name, server] of Object.entries(hostile)) await register(owner, name, server.url);

    expect(await externalNames(owner)).toEqual(['good__echo', 'good__other']);
    for (const name of Object.keys(hostile)) {
      expect(logLines.some((line) => line.includes(`MCP server ${name} (`) && line.includes('left out of tools/list'))).toBe(true);
    }
    for (const server of [hostile.json, hostile.sse, hostile.init]) expect(server.hugeBytesSent).toBeLessThan(24 * MiB);
    expect(hostile.endless.requests['tools/list']).toBe(10);
    expect(hostile.many.requests['tools/list']).toBe(6);

    const over = /^upstream reply over MCP_UPSTREAM_MAX_BYTES \(1048576 bytes\)$/;
    expect(await callText(owner, 'json__padding')).toEqual({ isError: true, text: expect.stringMatching(over) });
    expect(await callText(owner, 'sse__padding')).toEqual({ isError: true, text: expect.stringMatching(over) });
    expect(await callText(owner, 'init__t0')).toEqual({ isError: true, text: expect.stringMatching(over) });
    expect(await callText(owner, 'endless__t0')).toEqual({
      isError: true,
      text: 'upstream tools/list over MCP_UPSTREAM_MAX_PAGES (10 pages)',
    });
    expect(await callText(owner, 'many__t0')).toEqual({ isError: true, text: 'upstream tools/list over 500 tools' });
    expect(Object.values(hostile).map((server) => server.requests['tools/call'] ?? 0)).toEqual([0, 0, 0, 0, 0]);
    expect(await callText(owner, 'good__echo')).toEqual({ isError: undefined, text: 'echo ran' });
  });

  it('make a tools/call whose reply passes MCP_UPSTREAM_MAX_BYTES a tool error', async () => {
    const owner = await makeKey(t);
    const server = await upstream('huge-call');
    await register(owner, 'bigcall', server.url);
    expect(await externalNames(owner)).toEqual(['bigcall__echo', 'bigcall__other']);
    expect(await callText(owner, 'bigcall__echo')).toEqual({
      isError: true,
      text: 'upstream reply over MCP_UPSTREAM_MAX_BYTES (1048576 bytes)',
    });
    expect(server.hugeBytesSent).toBeLessThan(24 * MiB);
  });
});

/** The first contact with a record version also learns the upstream's revision: server/discover, then (a 2025 upstream) initialize. */
const PROBE = { 'server/discover': 1, initialize: 1, 'notifications/initialized': 1 };

describe('contacting upstreams', () => {
  it('a batch of five tools/list contacts each upstream once (after the one probe of its revision), and the list is reused within the TTL', async () => {
    const owner = await makeKey(t);
    const servers = await Promise.all([1, 2, 3].map(() => upstream('plain')));
    for (const [i, server] of servers.entries()) await register(owner, `batch-${i}`, server.url);
    const batch = [1, 2, 3, 4, 5].map((id) => toolsList(id));
    const res = await rpc(t, owner, batch).expect(200);
    expect(res.body).toHaveLength(5);
    expect(res.body.every((reply: { result: { tools: unknown[] } }) => reply.result.tools.length >= 6)).toBe(true);
    await rpc(t, owner, batch).expect(200);
    for (const server of servers)
      expect(server.requests).toEqual({ ...PROBE, initialize: 2, 'notifications/initialized': 2, 'tools/list': 1 });
  });

  it('a chat:read key does not contact an upstream whose tools it cannot see', async () => {
    const owner = await makeKey(t);
    const hidden = await upstream('plain');
    const shown = await upstream('plain');
    await register(owner, 'hidden', hidden.url);
    await register(owner, 'shown', shown.url, { tool_scopes: { echo: ['chat:read'] } });
    const reader = await makeKey(t, ['chat:read'], owner.user);
    expect(await externalNames(reader)).toEqual(['shown__echo']);
    expect(hidden.requests).toEqual({});
    expect(shown.requests['tools/list']).toBe(1);
  });

  it('an edited record is listed afresh and a deleted one is gone', async () => {
    const owner = await makeKey(t);
    const before = await upstream('plain');
    const after = await upstream('many-tools');
    const id = await register(owner, 'moving', before.url);
    expect(await externalNames(owner)).toEqual(['moving__echo', 'moving__other']);
    await rpc(t, owner, call(1, 'mcp_servers', { action: 'update', id, data: { url: after.url } })).expect(200);
    expect(await externalNames(owner)).toEqual([]);
    expect(after.requests.initialize).toBe(2);
    await rpc(t, owner, call(1, 'mcp_servers', { action: 'update', id, data: { url: before.url } })).expect(200);
    expect(await externalNames(owner)).toEqual(['moving__echo', 'moving__other']);
    expect(before.requests.initialize).toBe(4);
    expect(before.requests['server/discover']).toBe(2);
    await rpc(t, owner, call(1, 'mcp_servers', { action: 'delete', id })).expect(200);
    expect(await externalNames(owner)).toEqual([]);
    expect(before.requests.initialize).toBe(4);
  });

  it('one tools/call contacts the upstream once, even before any tools/list', async () => {
    const owner = await makeKey(t);
    const server = await upstream('plain');
    await register(owner, 'once', server.url);
    expect(await callText(owner, 'once__echo')).toEqual({ isError: undefined, text: 'echo ran' });
    expect(server.requests).toEqual({ ...PROBE, initialize: 2, 'notifications/initialized': 2, 'tools/list': 1, 'tools/call': 1 });
  });
});
