import http from 'node:http';
import { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import request from 'supertest';
import { makeKey, TestKey } from '../support/mcp-keys';
import { connectClient, listen } from '../support/mcp-client';
import { NotifyingUpstream, startNotifyingUpstream } from '../support/notifying-upstream';
import { RawUpstream, startRawUpstream } from '../support/raw-upstream';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

jest.setTimeout(60_000);

/**
 * What initialize declares on /mcp/servers/<name> (through the official SDK
 * client): keygate's capabilities narrowed to what that one upstream declared;
 * /mcp's fixed set beside it. Upstreams: `plain` (tools only), `notes`
 * (tools, resources with subscribe and listChanged), `files` (tools,
 * resources, prompts and completions; no subscribe, no logging), `down` (a
 * closed port) and `stuck` (accepts, never answers).
 */
const UPSTREAM_TIMEOUT_MS = 1000;
const KEYGATE = {
  tools: { listChanged: true },
  logging: {},
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
};
const UNKNOWN = { tools: { listChanged: true }, logging: {} };

let t: TestApp;
let app: { url: string; close(): Promise<void> };
let plain: RawUpstream;
let notes: NotifyingUpstream;
let files: UpstreamMcpServer;
let stuck: http.Server;
let owner: TestKey;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startTestApp({
    MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8',
    MCP_UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
    MCP_UPSTREAM_LIST_TTL_SECONDS: '60',
  });
  app = await listen(t.app);
  [plain, notes, files] = await Promise.all([startRawUpstream('plain'), startNotifyingUpstream(), startUpstream('files')]);
  stuck = http.createServer(() => undefined);
  await new Promise<void>((resolve) => stuck.listen(0, '127.0.0.1', resolve));
  owner = await makeKey(t);
  const setup = await clientOn('');
  for (const [name, url] of [
    ['plain', plain.url],
    ['notes', notes.url],
    ['files', files.url],
    ['down', `http://127.0.0.1:${await closedPort()}/mcp`],
    ['stuck', `http://127.0.0.1:${(stuck.address() as AddressInfo).port}/mcp`],
  ]) {
    const created = await setup.callTool({ name: 'mcp_servers', arguments: { action: 'create', data: { name, url } } });
    expect(created.isError).toBeFalsy();
  }
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  stuck?.closeAllConnections();
  await new Promise((resolve) => (stuck ? stuck.close(resolve) : resolve(undefined)));
  await Promise.all([plain?.stop(), notes?.stop(), files?.stop()]);
  await app?.close();
  await t?.close();
});

async function clientOn(path: string): Promise<Client> {
  const client = await connectClient(`${app.url}${path}`, { Authorization: `Bearer ${owner.raw}` });
  clients.push(client);
  return client;
}

/** A port nothing listens on: one the system handed out and took back. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await work();
  return { value, ms: performance.now() - start };
}

describe('initialize on /mcp/servers/<name>', () => {
  it('declares only tools for an upstream that has only tools', async () => {
    const client = await clientOn('/servers/plain');
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true } });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'other']);
  });

  it('asks the upstream once for its capabilities, not at every initialize', async () => {
    const before = plain.requests.initialize ?? 0;
    for (let i = 0; i < 3; i += 1)
      expect((await clientOn('/servers/plain')).getServerCapabilities()).toEqual({ tools: { listChanged: true } });
    expect(plain.requests.initialize ?? 0).toBe(before);
  });

  it('declares resources with subscribe and listChanged when the upstream declares them, and a subscribe then works', async () => {
    const client = await clientOn('/servers/notes');
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } });
    await client.subscribeResource({ uri: 'note://a' });
    expect(notes.follows).toContain('+note://a');
  });

  it('declares resources, prompts and completions without subscribe, listChanged or logging when the upstream has none of those', async () => {
    const client = await clientOn('/servers/files');
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true }, resources: {}, prompts: {}, completions: {} });
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet', 'vault']);
  });

  it('answers at once for an upstream that cannot be reached, with tools and logging only', async () => {
    const { value: client, ms } = await timed(() => clientOn('/servers/down'));
    expect(client.getServerCapabilities()).toEqual(UNKNOWN);
    expect(ms).toBeLessThan(UPSTREAM_TIMEOUT_MS);
    await expect(client.setLoggingLevel('info')).resolves.toEqual({});
  });

  it('answers within the upstream timeout for an upstream that never answers, and at once afterwards', async () => {
    const first = await timed(() => clientOn('/servers/stuck'));
    expect(first.value.getServerCapabilities()).toEqual(UNKNOWN);
    expect(first.ms).toBeLessThan(UPSTREAM_TIMEOUT_MS + 1500);
    const second = await timed(() => clientOn('/servers/stuck'));
    expect(second.value.getServerCapabilities()).toEqual(UNKNOWN);
    expect(second.ms).toBeLessThan(UPSTREAM_TIMEOUT_MS / 2);
  });

  it('still answers 404, and contacts nothing, for a name the owner has no server of', async () => {
    const res = await request(t.app)
      .post('/mcp/servers/nothing')
      .set('Authorization', `Bearer ${owner.raw}`)
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream')
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
    expect(res.status).toBe(404);
  });
});

describe('initialize on /mcp', () => {
  it("keeps keygate's fixed set, whatever the owner's upstreams declare: it federates them all", async () => {
    const client = await clientOn('');
    expect(client.getServerCapabilities()).toEqual(KEYGATE);
  });
});
