import { Client as ClientV2, McpSubscription, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createParser } from 'eventsource-parser';
import request from 'supertest';
import { makeKey, TestKey } from '../support/mcp-keys';
import { initialize, SseReader } from '../support/mcp-session-client';
import { connectClient, listen } from '../support/mcp-client';
import { NotifyingUpstream, startNotifyingUpstream } from '../support/notifying-upstream';
import { eventually } from '../support/replica';
import { startTestApp, TestApp } from '../support/test-app';
import { startV2Upstream, V2Upstream } from '../support/v2-upstream';

jest.setTimeout(60_000);

/**
 * subscriptions/listen (MCP 2026-07-28) on /mcp and /mcp/servers/<name>:
 * the acknowledgement first with what is honoured, every message tagged with
 * the listen's id, keygate's own tool changes (a key's scopes) and an
 * upstream's (a 2026-only upstream through its own listen, a 2025 one
 * through a held session's GET stream and resources/subscribe) delivered
 * only as far as the key may see them, and the stream places shared with
 * 2025 GET streams. The key `chat` holds chat:read, which the records'
 * tool_scopes and resource_scopes grant some things and not others.
 */
const V = '2026-07-28';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
let t: TestApp;
let app: { url: string; close(): Promise<void> };
let modern: V2Upstream;
let notes: NotifyingUpstream;
let owner: TestKey;
let chat: TestKey;
const closers: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  t = await startTestApp({
    MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8',
    MCP_UPSTREAM_TIMEOUT_MS: '3000',
    MCP_MAX_STREAMS_PER_REPLICA: '20',
    MCP_MAX_STREAMS_PER_KEY: '3',
  });
  app = await listen(t.app);
  [modern, notes] = await Promise.all([startV2Upstream('modern'), startNotifyingUpstream()]);
  owner = await makeKey(t);
  const full = await connectClient(app.url, { Authorization: `Bearer ${owner.raw}` });
  for (const data of [
    {
      name: 'modern',
      url: modern.url,
      tool_scopes: { echo: ['chat:read'], added: ['chat:read'], later: ['chat:read'] },
      resource_scopes: { 'file:///notes/a.txt': ['chat:read'], 'file:///notes/b.txt': ['agents:read'] },
    },
    {
      name: 'notes',
      url: notes.url,
      tool_scopes: { echo: ['chat:read'], shown: ['chat:read'] },
      resource_scopes: { 'note://a': ['chat:read'], 'note://b': ['chat:read'] },
    },
  ]) {
    const created = await full.callTool({ name: 'mcp_servers', arguments: { action: 'create', data } });
    expect(created.isError).toBeFalsy();
  }
  await full.close();
  chat = await makeKey(t, ['chat:read'], owner.user);
});
// Each test's streams and clients are closed after it: the key's stream share is small.
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c.close().catch(() => undefined)));
});
afterAll(async () => {
  await Promise.all([modern?.stop(), notes?.stop()]);
  await app?.close();
  await t?.close();
});

interface Heard {
  client: ClientV2;
  notices: { method: string; params?: Record<string, unknown> }[];
}
async function pinned(key: TestKey, path: string): Promise<Heard> {
  const client = new ClientV2({ name: 'listen-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: V } } });
  const notices: Heard['notices'] = [];
  for (const method of [
    'notifications/tools/list_changed',
    'notifications/prompts/list_changed',
    'notifications/resources/list_changed',
    'notifications/resources/updated',
  ] as const) {
    client.setNotificationHandler(method as 'notifications/tools/list_changed', (n) => void notices.push(n as never));
  }
  await client.connect(new TransportV2(new URL(`${app.url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${key.raw}` } } }));
  closers.push(client);
  return { client, notices };
}
async function subscribe(heard: Heard, filter: Parameters<ClientV2['listen']>[0]): Promise<McpSubscription> {
  const subscription = await heard.client.listen(filter);
  closers.push(subscription);
  return subscription;
}
const methods = (heard: Heard) => heard.notices.map((n) => n.method);
const patchKey = (key: TestKey, body: object) =>
  request(t.app)
    .patch(`/api/v1/api-keys/${key.id}`)
    .set('Authorization', `Bearer ${t.userToken(key.user)}`)
    .send(body)
    .expect(200);

/** subscriptions/listen POSTed by hand: its status, and every SSE frame as it comes (comments too). */
async function rawListen(path: string, key: TestKey, id: string | number, notifications: Record<string, unknown>) {
  const stop = new AbortController();
  const response = await fetch(`${app.url}${path}`, {
    method: 'POST',
    signal: stop.signal,
    headers: {
      Authorization: `Bearer ${key.raw}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': V,
      'Mcp-Method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: { notifications, _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} } },
    }),
  });
  const messages: Record<string, any>[] = [];
  let ended = false;
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const parser = createParser({ onEvent: (event) => void messages.push(JSON.parse(event.data)) });
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
          parser.feed(decoder.decode(chunk, { stream: true }));
      } catch {
        // aborted by the test
      }
      ended = true;
    })();
  }
  const handle = { response, messages, ended: () => ended, close: async () => stop.abort() };
  closers.push(handle);
  return handle;
}

describe('subscriptions/listen', () => {
  it('acknowledges first with the honoured subset, every message tagged with the listen id (/mcp/servers/notes, a 2025 upstream without prompts)', async () => {
    const raw = await rawListen('/servers/notes', chat, 'L-1', {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: false,
      resourceSubscriptions: ['note://a', 'note://nowhere', 'secret://s'],
    });
    expect(raw.response.status).toBe(200);
    await eventually(() => raw.messages.length >= 1, 5000);
    expect(raw.messages[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      // No prompts upstream, false is not asked for; note://nowhere is followed by nothing, secret://s needs a scope the key lacks.
      params: { notifications: { toolsListChanged: true, resourceSubscriptions: ['note://a'] }, _meta: { [SUBSCRIPTION_ID]: 'L-1' } },
    });
    await notes.updated('note://a');
    await eventually(() => raw.messages.length >= 2, 5000);
    expect(raw.messages[1]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'note://a', _meta: { [SUBSCRIPTION_ID]: 'L-1' } },
    });
  });

  it('refuses a filter that is not one (400 -32602) and a client that takes no event stream (406), the id echoed, and ends at once when nothing can be honoured', async () => {
    const bad = await rawListen('', chat, 7, { toolsListChanged: 'yes' });
    expect(bad.response.status).toBe(400);
    expect(await bad.response.json()).toMatchObject({ id: 7, error: { code: -32602 } });
    const jsonOnly = await request(t.app)
      .post('/mcp')
      .set('Authorization', `Bearer ${chat.raw}`)
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json')
      .set('MCP-Protocol-Version', V)
      .set('Mcp-Method', 'subscriptions/listen')
      .send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 9,
          method: 'subscriptions/listen',
          params: {
            notifications: { toolsListChanged: true },
            _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} },
          },
        }),
      );
    expect(jsonOnly.status).toBe(406);
    expect(jsonOnly.body).toMatchObject({ id: 9, error: { code: -32000 } });
    const none = await rawListen('/servers/notes', chat, 8, { promptsListChanged: true });
    await eventually(() => none.ended(), 5000);
    expect(none.messages).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: {}, _meta: { [SUBSCRIPTION_ID]: 8 } },
      },
      {
        jsonrpc: '2.0',
        id: 8,
        result: {
          resultType: 'complete',
          _meta: { [SUBSCRIPTION_ID]: 8, 'io.modelcontextprotocol/serverInfo': { name: 'keygate/notes', version: expect.any(String) } },
        },
      },
    ]);
  });

  it("delivers tools/list_changed when the key's scopes change what it sees, and not for another key's change", async () => {
    const other = await makeKey(t, ['chat:read'], owner.user);
    const heard = await pinned(chat, '');
    const subscription = await subscribe(heard, { toolsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    await patchKey(other, { scopes: ['chat:read', 'projects:read'] }); // another key: nothing here
    await patchKey(chat, { name: 'renamed' }); // this key, the same tools: nothing
    await patchKey(chat, { scopes: ['chat:read', 'projects:read'] }); // a built-in tool more
    await eventually(() => heard.notices.length >= 1, 5000);
    await patchKey(chat, { scopes: ['chat:read'] });
    await eventually(() => heard.notices.length >= 2, 5000);
    expect(methods(heard)).toEqual(['notifications/tools/list_changed', 'notifications/tools/list_changed']);
    expect(heard.notices[0].params?._meta).toEqual({ [SUBSCRIPTION_ID]: expect.any(String) });
  });

  it("delivers a 2025 upstream's tool change the key sees, and not one it cannot see", async () => {
    const heard = await pinned(chat, '/servers/notes');
    await subscribe(heard, { toolsListChanged: true });
    await notes.addTool('hidden'); // tool_scopes give it nothing chat:read has
    await notes.addTool('shown');
    await eventually(() => heard.notices.length >= 1, 5000);
    const names = (await heard.client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(['echo', 'shown']);
    expect(methods(heard)).toEqual(['notifications/tools/list_changed']);
  });

  it("delivers a 2026 upstream's tool change and resource update through its own listen, on both endpoints, under the endpoint's names", async () => {
    const single = await pinned(chat, '/servers/modern');
    const all = await pinned(chat, '');
    const one = await subscribe(single, { toolsListChanged: true, resourceSubscriptions: ['file:///notes/a.txt', 'file:///notes/b.txt'] });
    const both = await subscribe(all, { toolsListChanged: true, resourceSubscriptions: ['keygate://modern/file:///notes/a.txt'] });
    // b.txt needs agents:read.
    expect(one.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['file:///notes/a.txt'] });
    expect(both.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['keygate://modern/file:///notes/a.txt'] });
    modern.notify!.resourceUpdated('file:///notes/b.txt'); // not followed here
    modern.notify!.resourceUpdated('file:///notes/a.txt');
    await eventually(() => single.notices.length >= 1 && all.notices.length >= 1, 5000);
    expect(single.notices[0]).toMatchObject({ method: 'notifications/resources/updated', params: { uri: 'file:///notes/a.txt' } });
    expect(all.notices[0]).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'keygate://modern/file:///notes/a.txt' },
    });
    modern.tools.push({ name: 'added', description: 'New', inputSchema: { type: 'object' } });
    modern.notify!.toolsChanged();
    await eventually(() => single.notices.length >= 2 && all.notices.length >= 2, 5000);
    expect(methods(single)).toEqual(['notifications/resources/updated', 'notifications/tools/list_changed']);
    expect(methods(all)).toEqual(['notifications/resources/updated', 'notifications/tools/list_changed']);
  });

  it("passes on a tools/list_changed keygate's own listing cannot attribute (the conformance trigger) to a key that sees the upstream's tools, not to one that sees none", async () => {
    const blind = await makeKey(t, ['agents:read'], owner.user);
    const sees = await pinned(chat, '/servers/modern');
    const none = await pinned(blind, '/servers/modern');
    await subscribe(sees, { toolsListChanged: true });
    // agents:read reads b.txt and no tool: its update marks where the tool change would have been told.
    expect((await subscribe(none, { toolsListChanged: true, resourceSubscriptions: ['file:///notes/b.txt'] })).honoredFilter).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ['file:///notes/b.txt'],
    });
    modern.notify!.toolsChanged(); // the tool list itself is unchanged
    modern.notify!.resourceUpdated('file:///notes/b.txt');
    await eventually(() => sees.notices.length >= 1 && none.notices.length >= 1, 5000);
    expect(methods(sees)).toEqual(['notifications/tools/list_changed']);
    expect(methods(none)).toEqual(['notifications/resources/updated']);
  });

  it('holds a 2025 upstream session for the stream (GET stream, resources/subscribe) and ends it (DELETE) when the client closes', async () => {
    const ended = notes.sessionsEnded;
    const heard = await pinned(chat, '/servers/notes');
    const subscription = await subscribe(heard, { resourceSubscriptions: ['note://b'] });
    expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ['note://b'] });
    expect(notes.follows).toContain('+note://b');
    await notes.updated('note://a'); // not asked for on this stream
    await notes.updated('note://b');
    await eventually(() => heard.notices.length >= 1, 5000);
    expect(heard.notices).toEqual([
      { method: 'notifications/resources/updated', params: { uri: 'note://b', _meta: { [SUBSCRIPTION_ID]: expect.any(String) } } },
    ]);
    await subscription.close();
    expect(await subscription.closed).toBe('local');
    await eventually(() => notes.sessionsEnded > ended, 5000);
  });

  it("listens again to a 2025 upstream that forgot keygate's session (its GET stream 404): a new session, GET stream and subscribe", async () => {
    const heard = await pinned(chat, '/servers/notes');
    await subscribe(heard, { resourceSubscriptions: ['note://b'] });
    const subscribes = () => notes.follows.filter((follow) => follow === '+note://b').length;
    const before = subscribes();
    await notes.forgetSessions();
    await eventually(() => subscribes() > before, 15_000);
    await notes.updated('note://b');
    await eventually(() => heard.notices.length >= 1, 5000);
    expect(heard.notices).toEqual([
      { method: 'notifications/resources/updated', params: { uri: 'note://b', _meta: { [SUBSCRIPTION_ID]: expect.any(String) } } },
    ]);
  });

  it("counts listen streams against the key's stream share, with its 2025 GET streams (429, the id echoed), and frees the place when the client closes", async () => {
    const key = await makeKey(t, ['chat:read'], owner.user);
    const get = await SseReader.open(app.url.replace(/\/mcp$/, ''), key.raw, await initialize(app.url.replace(/\/mcp$/, ''), key.raw));
    closers.push({ close: async () => get.close() });
    expect(get.response.status).toBe(200);
    const held: Awaited<ReturnType<typeof rawListen>>[] = [];
    for (let i = 0; i < 2; i += 1) held.push(await rawListen('', key, i, { toolsListChanged: true }));
    await eventually(() => held.every((h) => h.messages.length >= 1), 5000);
    const refused = await rawListen('', key, 'over', { toolsListChanged: true });
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get('retry-after')).toBe('5');
    expect(await refused.response.json()).toMatchObject({
      id: 'over',
      error: { code: -32000, message: expect.stringContaining('MCP_MAX_STREAMS_PER_KEY') },
    });
    await held[0].close();
    let again;
    await eventually(
      async () => {
        again = await rawListen('', key, 'again', { toolsListChanged: true });
        if (again.response.status === 200) return true;
        await again.close();
        return false;
      },
      5000,
      100,
    );
    expect(again!.response.status).toBe(200);
  });

  it('ends the stream gracefully once the key is revoked', async () => {
    const key = await makeKey(t, ['chat:read'], owner.user);
    const heard = await pinned(key, '');
    const subscription = await subscribe(heard, { toolsListChanged: true });
    await request(t.app)
      .delete(`/api/v1/api-keys/${key.id}`)
      .set('Authorization', `Bearer ${t.userToken(key.user)}`)
      .expect((res) => expect(res.status).toBeLessThan(300));
    expect(await subscription.closed).toBe('graceful');
  });

  it('declares listChanged and subscribe in server/discover where listen delivers them', async () => {
    const all = await pinned(chat, '');
    const single = await pinned(chat, '/servers/notes');
    expect(all.client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    expect(single.client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    });
  });
});

describe('a 2025 session in front of a 2026-only upstream', () => {
  it("follows a resources/subscribe through the upstream's listen and carries its update and tool change on the session's GET stream", async () => {
    const client = await connectClient(`${app.url}/servers/modern`, { Authorization: `Bearer ${chat.raw}` });
    closers.push(client);
    const heard: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push(`updated ${n.params.uri}`));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard.push('tools'));
    expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: true });
    // The client opens its GET stream on its own after initialize: what the upstream sends before that stream is held is nobody's.
    await eventually(async () => {
      const rows = await t.db.dataSource.query(
        'SELECT stream_replica FROM mcp_sessions WHERE key_id = $1 AND ended_at IS NULL ORDER BY created_at DESC LIMIT 1',
        [chat.id],
      );
      return rows[0]?.stream_replica != null;
    }, 5000);
    await client.subscribeResource({ uri: 'file:///notes/a.txt' });
    modern.notify!.resourceUpdated('file:///notes/b.txt'); // not subscribed
    modern.notify!.resourceUpdated('file:///notes/a.txt');
    await eventually(() => heard.length >= 1, 5000);
    modern.tools.push({ name: 'later', description: 'Newer', inputSchema: { type: 'object' } });
    modern.notify!.toolsChanged();
    await eventually(() => heard.length >= 2, 5000);
    expect(heard).toEqual(['updated file:///notes/a.txt', 'tools']);
  });
});
