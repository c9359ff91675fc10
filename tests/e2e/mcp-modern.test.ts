import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { makeKey, TestKey } from '../support/mcp-keys';
import { connectClient, listen } from '../support/mcp-client';
import { eventually } from '../support/replica';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';
import { RelayUpstream, startRelayUpstream } from '../support/relay-upstream';
import { ListenCapabilities } from '../../src/adapters/mcp/modern/listen-capabilities';
import { DatabaseUnavailableError } from '../../src/domain/errors';

jest.setTimeout(60_000);

/**
 * MCP 2026-07-28 (stateless, the era in each request's _meta) on /mcp and
 * /mcp/servers/<name>, beside 2025 sessions on the same endpoints: the SDK v2
 * client pinned to 2026 and in `auto` mode, and the v1 client, with a key
 * scoped to chat:read, which the `files` upstream's tool_scopes grant its
 * `secret` tool and nothing else, its resource_scopes the file:///secret/{name}
 * resources and its prompt_scopes the `vault` prompt.
 */
const V = '2026-07-28';
let t: TestApp;
let app: { url: string; close(): Promise<void> };
let upstream: UpstreamMcpServer;
let relaying: RelayUpstream;
let owner: TestKey;
let chat: TestKey;
const closers: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '2000' });
  app = await listen(t.app);
  [upstream, relaying] = await Promise.all([startUpstream('one'), startRelayUpstream()]);
  owner = await makeKey(t);
  const full = await legacyClient(owner);
  for (const data of [
    {
      name: 'files',
      url: upstream.url,
      tool_scopes: { secret: ['chat:read'] },
      resource_scopes: { 'file:///secret/{name}': ['chat:read'] },
      prompt_scopes: { vault: ['chat:read'] },
    },
    { name: 'relay', url: relaying.url },
  ]) {
    const created = await full.callTool({ name: 'mcp_servers', arguments: { action: 'create', data } });
    expect(created.isError).toBeFalsy();
  }
  chat = await makeKey(t, ['chat:read'], owner.user);
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c.close()));
  await Promise.all([upstream?.stop(), relaying?.stop()]);
  await app?.close();
  await t?.close();
});

async function legacyClient(key: TestKey, path = ''): Promise<Client> {
  const client = await connectClient(`${app.url}${path}`, { Authorization: `Bearer ${key.raw}` });
  closers.push(client);
  return client;
}
async function modernClient(key: TestKey, path: string, mode: 'auto' | { pin: string }): Promise<ClientV2> {
  const client = new ClientV2({ name: 'keygate-test-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new TransportV2(new URL(`${app.url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${key.raw}` } } }));
  closers.push(client);
  return client;
}
const names = async (client: { listTools(): Promise<{ tools: { name: string }[] }> }) =>
  (await client.listTools()).tools.map((tool) => tool.name).sort();
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
function post(
  path: string,
  key: TestKey,
  body: { method: string; params?: Record<string, unknown> } & Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return request(t.app)
    .post(path)
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream')
    .set('Authorization', `Bearer ${key.raw}`)
    .set('MCP-Protocol-Version', V)
    .set('Mcp-Method', body.method)
    .set(headers)
    .send(JSON.stringify({ jsonrpc: '2.0', ...body, params: { ...body.params, _meta: meta } }));
}
const auditedTools = (action: string) =>
  request(t.app)
    .get('/api/v1/audit-events')
    .query({ action })
    .set('Authorization', `Bearer ${t.userToken(owner.user)}`)
    .expect(200)
    .then((res) => (res.body.events as { details: { tool: string } }[]).map((e) => e.details.tool));

describe.each([
  ['/mcp', 'files__secret', 'files__echo'],
  ['/mcp/servers/files', 'secret', 'echo'],
])('%s with a key scoped to chat:read', (path, allowed, forbidden) => {
  const endpoint = path.slice('/mcp'.length);
  it('lists the same scope-filtered tools to the pinned 2026 client, the auto client and the v1 client', async () => {
    const pinned = await modernClient(chat, endpoint, { pin: V });
    const auto = await modernClient(chat, endpoint, 'auto');
    const v1 = await legacyClient(chat, endpoint);
    expect(pinned.getProtocolEra()).toBe('modern');
    expect(auto.getProtocolEra()).toBe('modern');
    expect(auto.getNegotiatedProtocolVersion()).toBe(V);
    const legacyNames = await names(v1);
    expect(legacyNames).toContain(allowed);
    expect(legacyNames).not.toContain(forbidden);
    expect(await names(pinned)).toEqual(legacyNames);
    expect(await names(auto)).toEqual(legacyNames);
  });

  it('runs a permitted call over 2026 and refuses a forbidden one as 2025 does (403 -32003, the id echoed)', async () => {
    const pinned = await modernClient(chat, endpoint, { pin: V });
    expect(text(await pinned.callTool({ name: allowed, arguments: {} }))).toBe('the secret');
    await expect(pinned.callTool({ name: forbidden, arguments: { text: 'x' } })).rejects.toThrow();
    const modern = await post(
      path,
      chat,
      { id: 'f', method: 'tools/call', params: { name: forbidden, arguments: { text: 'x' } } },
      { 'Mcp-Name': forbidden },
    ).expect(403);
    const legacy = await request(t.app)
      .post(path)
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream')
      .set('Authorization', `Bearer ${chat.raw}`)
      .send({ jsonrpc: '2.0', id: 'f', method: 'tools/call', params: { name: forbidden, arguments: { text: 'x' } } })
      .expect(403);
    expect(modern.body).toEqual(legacy.body);
    expect(modern.body).toMatchObject({ id: 'f', error: { code: -32003 } });
    expect(modern.headers['www-authenticate']).toBe(legacy.headers['www-authenticate']);
  });

  it("answers server/discover statelessly, with the endpoint's name and what it serves", async () => {
    const res = await post(path, chat, { id: 1, method: 'server/discover' }, { 'Mcp-Session-Id': 'ignored' }).expect(200);
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(res.body.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [V],
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: path === '/mcp' ? 'keygate' : 'keygate/files' } },
    });
    // listChanged and subscribe as subscriptions/listen delivers them (mcp-modern-listen.test.ts), no logging (deprecated).
    // The files upstream declares no subscribe or listChanged: only keygate's own tool changes are delivered there.
    expect(res.body.result.capabilities).toEqual(
      path === '/mcp'
        ? {
            tools: { listChanged: true },
            resources: { subscribe: true, listChanged: true },
            prompts: { listChanged: true },
            completions: {},
          }
        : { tools: { listChanged: true }, resources: {}, prompts: {}, completions: {} },
    );
    const list = await post(path, chat, { id: 2, method: 'tools/list' }).expect(200);
    expect(list.body.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
  });

  it('takes a 2026 notification with 202 and no body', async () => {
    const res = await request(t.app)
      .post(path)
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream')
      .set('Authorization', `Bearer ${chat.raw}`)
      .set('MCP-Protocol-Version', V)
      .set('Mcp-Method', 'notifications/cancelled')
      .send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'gone', _meta: meta } }))
      .expect(202);
    expect(res.text).toBe('');
  });

  it('answers what the 2026 leg does not serve with 404 -32601, the id echoed', async () => {
    for (const method of ['ping', 'resources/subscribe']) {
      const res = await post(path, chat, { id: method, method }).expect(404);
      expect(res.body).toMatchObject({ id: method, error: { code: -32601 } });
    }
  });
});

describe.each([
  ['/mcp', 'keygate://files/', 'files__'],
  ['/mcp/servers/files', '', ''],
])('%s content over 2026 with a key scoped to chat:read', (path, at, named) => {
  const endpoint = path.slice('/mcp'.length);
  const read = (uri: string) => post(path, chat, { id: 'r', method: 'resources/read', params: { uri } }, { 'Mcp-Name': uri }).expect(200);

  it('lists and reads only the resources resource_scopes grant, as 2025 does', async () => {
    const pinned = await modernClient(chat, endpoint, { pin: V });
    const v1 = await legacyClient(chat, endpoint);
    const uris = async (client: { listResources(): Promise<{ resources: { uri: string }[] }> }) =>
      (await client.listResources()).resources.map((r) => r.uri);
    expect(await uris(pinned)).toEqual([`${at}file:///secret/s.txt`]);
    expect(await uris(pinned)).toEqual(await uris(v1));
    expect((await pinned.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)).toEqual([`${at}file:///secret/{name}`]);
    expect((await pinned.readResource({ uri: `${at}file:///secret/x.txt` })).contents).toEqual([
      { uri: `${at}file:///secret/x.txt`, mimeType: 'text/plain', text: 'one: file:///secret/x.txt' },
    ]);
    await expect(pinned.readResource({ uri: `${at}file:///notes/a.txt` })).rejects.toMatchObject({ code: -32602 });
  });

  it('answers a hidden and an unknown resource -32602 with the URI in data, where 2025 answers -32002', async () => {
    for (const uri of [`${at}file:///notes/a.txt`, `${at}file:///nowhere`]) {
      const res = await read(uri);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: 'r', error: { code: -32602, message: `Resource not found: ${uri}`, data: { uri } } });
    }
    const v1 = await legacyClient(chat, endpoint);
    await expect(v1.readResource({ uri: `${at}file:///nowhere` })).rejects.toMatchObject({ code: -32002 });
  });

  it('lists and gets only the prompts prompt_scopes grant, and completes their arguments', async () => {
    const pinned = await modernClient(chat, endpoint, { pin: V });
    expect((await pinned.listPrompts()).prompts.map((p) => p.name)).toEqual([`${named}vault`]);
    expect((await pinned.getPrompt({ name: `${named}vault` })).messages[0].content).toEqual({ type: 'text', text: 'one vaults nobody' });
    await expect(pinned.getPrompt({ name: `${named}greet`, arguments: { who: 'x' } })).rejects.toMatchObject({ code: -32602 });
    const byTemplate = await pinned.complete({
      ref: { type: 'ref/resource', uri: `${at}file:///secret/{name}` },
      argument: { name: 'name', value: 'b' },
    });
    expect(byTemplate.completion.values).toEqual(['one:b.txt']);
    await expect(
      pinned.complete({ ref: { type: 'ref/prompt', name: `${named}greet` }, argument: { name: 'who', value: 'w' } }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('marks every list and read private, with no time to live', async () => {
    for (const [method, params] of [
      ['resources/list', {}],
      ['resources/templates/list', {}],
      ['prompts/list', {}],
      ['resources/read', { uri: `${at}file:///secret/s.txt` }],
    ] as const) {
      const headers: Record<string, string> = 'uri' in params ? { 'Mcp-Name': params.uri } : {};
      const res = await post(path, chat, { id: method, method, params }, headers).expect(200);
      expect(res.body).toMatchObject({ id: method, result: { resultType: 'complete', ttlMs: 0, cacheScope: 'private' } });
    }
  });
});

it('declares in server/discover on /mcp/servers/<name> only what the upstream declares', async () => {
  // The relay upstream declares tools, logging and resources.
  const res = await post('/mcp/servers/relay', owner, { id: 1, method: 'server/discover' }).expect(200);
  expect(res.body.result.capabilities).toEqual({ tools: { listChanged: true }, resources: {} });
});

it('answers server/discover 503 with its id when PostgreSQL goes away as the SDK leg makes its server, as any outage', async () => {
  // The race: the key and the record were read, then the endpoint's capabilities are not (the store throws this on an outage).
  const spy = jest.spyOn(ListenCapabilities.prototype, 'execute').mockRejectedValueOnce(new DatabaseUnavailableError());
  try {
    const res = await post('/mcp/servers/relay', owner, { id: 'discover-1', method: 'server/discover' });
    expect(spy).toHaveBeenCalledTimes(1);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 'discover-1',
      error: { code: -32000, message: 'Service Unavailable: The database is not reachable; retry shortly' },
    });
  } finally {
    spy.mockRestore();
  }
  // Back: the same request is served.
  await post('/mcp/servers/relay', owner, { id: 'discover-2', method: 'server/discover' }).expect(200);
});

it('answers a 2026 tools/list whose cursor is not a string -32602 with its id, as 2025 does, not -32603 (found by the fuzz suite)', async () => {
  const res = await post('/mcp', owner, { id: 999987, method: 'tools/list', params: { cursor: {} } });
  expect(res.body).toMatchObject({ id: 999987, error: { code: -32602 } });
});

describe('the header check comes before any scope decision', () => {
  it('answers a Mcp-Name that disagrees with the body 400 -32020, not the 403 the called tool would get, and records no denial', async () => {
    const before = (await auditedTools('tool.denied')).length;
    const mismatch = await post(
      '/mcp/servers/files',
      chat,
      { id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } },
      { 'Mcp-Name': 'secret' },
    ).expect(400);
    expect(mismatch.body).toMatchObject({ id: 7, error: { code: -32020 } });
    const missing = await post('/mcp/servers/files', chat, {
      id: 8,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' } },
    }).expect(400);
    expect(missing.body).toMatchObject({ id: 8, error: { code: -32020 } });
    expect((await auditedTools('tool.denied')).length).toBe(before);
  });
});

it('records a 2026 tools/call in the audit trail, as a 2025 one', async () => {
  const before = (await auditedTools('tool.called')).filter((tool) => tool === 'files__secret').length;
  const pinned = await modernClient(chat, '/servers/files', { pin: V });
  await pinned.callTool({ name: 'secret', arguments: {} });
  await eventually(
    async () => (await auditedTools('tool.called')).filter((tool) => tool === 'files__secret').length === before + 1,
    5000,
    50,
  );
});

describe('usage limits and malformed retry fields, as on 2025', () => {
  const keyWith = async (limits: Record<string, unknown>): Promise<TestKey> => {
    const res = await request(t.app)
      .post('/api/v1/api-keys')
      .set('Authorization', `Bearer ${t.userToken(owner.user)}`)
      .send({ name: 'limited', scopes: ['chat:read'], ...limits })
      .expect(201);
    return { id: res.body.id, raw: res.body.raw_key, user: owner.user };
  };
  const callSecret = (key: TestKey, id: number, params: Record<string, unknown> = {}) =>
    post(
      '/mcp/servers/files',
      key,
      { id, method: 'tools/call', params: { name: 'secret', arguments: {}, ...params } },
      { 'Mcp-Name': 'secret' },
    );

  it('charges a 2026 tools/call to the quota, and refuses the one past it with 429', async () => {
    const key = await keyWith({ quota: { remaining: 1, refill: null } });
    expect((await callSecret(key, 1).expect(200)).body.result.content[0].text).toBe('the secret');
    expect((await callSecret(key, 2).expect(429)).body).toMatchObject({ type: 'urn:keygate:problem:quota-exhausted' });
  });

  it('counts 2026 requests against the rate limit', async () => {
    const key = await keyWith({ rate_limit: { limit: 2, window_seconds: 3600 } });
    const statuses: number[] = [];
    for (let id = 1; id <= 4; id++) statuses.push((await post('/mcp', key, { id, method: 'tools/list' })).status);
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses[3]).toBe(429);
  });

  it('refuses inputResponses that are not result objects with 400 -32602 before the call runs or is charged', async () => {
    const key = await keyWith({ quota: { remaining: 1, refill: null } });
    const bad = await callSecret(key, 5, { inputResponses: { user_name: 12345 } }).expect(400);
    expect(bad.body).toMatchObject({ id: 5, error: { code: -32602 } });
    // The quota's one call is still there.
    expect((await callSecret(key, 6).expect(200)).body.result.content[0].text).toBe('the secret');
  });
});

it('keeps a v1 client on a 2025 session, answered as before', async () => {
  const transport = new StreamableHTTPClientTransport(new URL(app.url), {
    requestInit: { headers: { Authorization: `Bearer ${chat.raw}` } },
  });
  const client = new Client({ name: 'v1', version: '1.0.0' });
  await client.connect(transport);
  closers.push(client);
  expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
  expect(text(await client.callTool({ name: 'files__secret', arguments: {} }))).toBe('the secret');
});

describe("an upstream call's progress, on the 2026 request's own stream", () => {
  async function callProgress(meta: Record<string, unknown>, accept = 'application/json, text/event-stream') {
    const res = await fetch(`${app.url}/servers/relay`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept,
        authorization: `Bearer ${owner.raw}`,
        'mcp-protocol-version': V,
        'mcp-method': 'tools/call',
        'mcp-name': 'progress',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'p',
        method: 'tools/call',
        params: { name: 'progress', arguments: {}, _meta: { ...metaOf(), ...meta } },
      }),
    });
    const body = await res.text();
    const messages = res.headers.get('content-type')?.startsWith('text/event-stream')
      ? body
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => JSON.parse(line.slice(6)))
      : [JSON.parse(body)];
    return { status: res.status, messages };
  }
  const metaOf = () => ({ 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} });
  const methods = (messages: { method?: string }[]) => messages.map((m) => m.method ?? 'result');

  it("relays the progress under the client's token, and no log message (the upstream logs one)", async () => {
    const { status, messages } = await callProgress({ progressToken: 'tok' });
    expect(status).toBe(200);
    expect(methods(messages)).toEqual(['notifications/progress', 'notifications/progress', 'result']);
    expect(messages[0].params).toMatchObject({ progressToken: 'tok', progress: 1, total: 2 });
    expect(messages[2]).toMatchObject({ id: 'p', result: { resultType: 'complete' } });
  });

  it('answers a client that takes only JSON with the result alone', async () => {
    const { messages } = await callProgress({ progressToken: 'tok' }, 'application/json');
    expect(methods(messages)).toEqual(['result']);
  });
});
