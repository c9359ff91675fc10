import { randomUUID } from 'node:crypto';
import { createParser } from 'eventsource-parser';
import request from 'supertest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTwoReplicas, TwoReplicas } from '../support/app-replicas';
import { NotifyingUpstream, startNotifyingUpstream } from '../support/notifying-upstream';

jest.setTimeout(60_000);

let r: TwoReplicas;
let upstream: NotifyingUpstream;
/** Sends a URI's update right after answering its subscribe. */
let eager: NotifyingUpstream;
let raw: string;

beforeAll(async () => {
  r = await startTwoReplicas({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_MAX_SUBSCRIPTIONS_PER_SESSION: '2' });
  upstream = await startNotifyingUpstream();
  eager = await startNotifyingUpstream({ updateOnSubscribe: true });
  const user = randomUUID();
  const res = await request(r.a.app)
    .post('/api/v1/api-keys')
    .set('Authorization', `Bearer ${r.a.userToken(user)}`)
    .send({ name: 'subscriber', scopes: ['mcp_servers:read', 'mcp_servers:write'] })
    .expect(201);
  raw = res.body.raw_key;
  const setup = await connect(r.aUrl, '/mcp');
  const created = await setup.client.callTool({
    name: 'mcp_servers',
    arguments: {
      action: 'create',
      data: {
        name: 'notes',
        url: upstream.url,
        resource_scopes: { 'secret://s': ['agents:read'] },
      },
    },
  });
  expect(created.isError).toBeFalsy();
  const second = await setup.client.callTool({
    name: 'mcp_servers',
    arguments: { action: 'create', data: { name: 'eager', url: eager.url } },
  });
  expect(second.isError).toBeFalsy();
  await setup.client.close();
});
afterAll(async () => {
  await upstream?.stop();
  await eager?.stop();
  await r?.close();
});

/** The official SDK client on `path` of `base`; its GET stream opens after initialize, and what it carries is collected. */
async function connect(base: string, path: string) {
  const client = new Client({ name: 'subscribe-test', version: '1.0.0' }, { capabilities: {} });
  const updated: string[] = [];
  let listChanged = 0;
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (listChanged += 1));
  const transport = new StreamableHTTPClientTransport(new URL(`${base}${path}`), {
    requestInit: { headers: { Authorization: `Bearer ${raw}` } },
  });
  await client.connect(transport);
  return { client, transport, updated, listChanged: () => listChanged };
}

/** A JSON-RPC request POSTed to `base` within the session: the other replica, when the client's stream is on this one. */
async function rpc(base: string, path: string, session: string | undefined, method: string, params: unknown) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${raw}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
      ...(session && { 'Mcp-Session-Id': session }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string; data?: any } };
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('resources/subscribe across two replicas', () => {
  it('relays a subscribed update with its keygate URI on the stream held by the other replica, and stops after unsubscribe', async () => {
    const holder = await connect(r.b.url, '/mcp');
    const session = holder.transport.sessionId!;
    const opened = upstream.streamsOpened;
    expect(await rpc(r.aUrl, '/mcp', session, 'resources/subscribe', { uri: 'keygate://notes/note://a' })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {},
    });
    expect(await rpc(r.aUrl, '/mcp', session, 'resources/subscribe', { uri: 'keygate://notes/note://b' })).toMatchObject({ result: {} });
    expect(upstream.follows).toEqual(expect.arrayContaining(['+note://a', '+note://b']));
    // Replica b heard the subscription and opened the upstream's GET stream within keygate's upstream session.
    await until(() => upstream.streamsOpened > opened);
    await new Promise((resolve) => setTimeout(resolve, 200));

    await upstream.updated('note://a');
    await until(() => holder.updated.length >= 1);
    expect(holder.updated).toEqual(['keygate://notes/note://a']);

    expect(await rpc(r.aUrl, '/mcp', session, 'resources/unsubscribe', { uri: 'keygate://notes/note://a' })).toMatchObject({ result: {} });
    expect(upstream.follows).toContain('-note://a');
    // Unknown subscriptions are idempotent: {} and nothing sent upstream.
    const follows = upstream.follows.length;
    expect(await rpc(r.aUrl, '/mcp', session, 'resources/unsubscribe', { uri: 'keygate://notes/note://a' })).toMatchObject({ result: {} });
    expect(upstream.follows.length).toBe(follows);

    await upstream.updated('note://a');
    await upstream.updated('note://b');
    await until(() => holder.updated.length >= 2);
    // note://a no longer followed: only note://b came.
    expect(holder.updated).toEqual(['keygate://notes/note://a', 'keygate://notes/note://b']);
    await holder.client.close();
  });

  it('refuses a URI the scopes hide exactly as resources/read does, never sends it upstream and never relays it', async () => {
    const holder = await connect(r.b.url, '/mcp');
    const session = holder.transport.sessionId!;
    const read = await rpc(r.aUrl, '/mcp', session, 'resources/read', { uri: 'keygate://notes/secret://s' });
    const subscribed = await rpc(r.aUrl, '/mcp', session, 'resources/subscribe', { uri: 'keygate://notes/secret://s' });
    expect(subscribed.error).toEqual(read.error);
    expect(subscribed.error).toMatchObject({ code: -32002, data: { uri: 'keygate://notes/secret://s' } });
    expect(upstream.follows).not.toContain('+secret://s');
    expect(await rpc(r.aUrl, '/mcp', session, 'resources/subscribe', { uri: 'keygate://notes/note://b' })).toMatchObject({ result: {} });
    await until(() => upstream.streamsOpened > 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await upstream.updated('secret://s');
    await upstream.updated('note://b');
    await until(() => holder.updated.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(holder.updated).toEqual(['keygate://notes/note://b']);
    await holder.client.close();
  });

  it('bounds subscriptions per session (MCP_MAX_SUBSCRIPTIONS_PER_SESSION), and refuses a subscribe outside a session', async () => {
    const holder = await connect(r.aUrl, '/mcp');
    const session = holder.transport.sessionId!;
    await holder.client.subscribeResource({ uri: 'keygate://notes/note://a' });
    await holder.client.subscribeResource({ uri: 'keygate://notes/note://b' });
    // Again: already held, still {}.
    await holder.client.subscribeResource({ uri: 'keygate://notes/note://b' });
    const third = await rpc(r.aUrl, '/mcp', session, 'resources/subscribe', { uri: 'keygate://notes/note://c' });
    expect(third.error).toMatchObject({ code: -32000, data: { max_subscriptions: 2 } });
    expect(upstream.follows).not.toContain('+note://c');
    const stateless = await rpc(r.aUrl, '/mcp', undefined, 'resources/subscribe', { uri: 'keygate://notes/note://a' });
    expect(stateless.error).toMatchObject({ code: -32600 });
    expect(stateless.error!.message).toContain('needs an MCP session');
    const bad = await rpc(r.aUrl, '/mcp', session, 'resources/subscribe', { uri: 42 });
    expect(bad.error).toMatchObject({ code: -32602 });
    await holder.client.close();
  });

  it('declares resources.subscribe and listChanged', async () => {
    const holder = await connect(r.aUrl, '/mcp');
    expect(holder.client.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: true });
    await holder.client.close();
  });

  it('on /mcp/servers/<name> keeps the upstream URI unchanged', async () => {
    const holder = await connect(r.b.url, '/mcp/servers/notes');
    await holder.client.subscribeResource({ uri: 'note://a' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await upstream.updated('note://a');
    await until(() => holder.updated.length >= 1);
    expect(holder.updated).toEqual(['note://a']);
    await holder.client.close();
  });

  it("turns an upstream's tools/list_changed into the client's tools/list_changed when the tools it sees changed", async () => {
    const holder = await connect(r.b.url, '/mcp');
    // A tools/call opens keygate's session with the upstream, whose GET stream the holder then follows.
    await holder.client.callTool({ name: 'notes__echo', arguments: {} });
    await holder.client.subscribeResource({ uri: 'keygate://notes/note://a' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = holder.listChanged();
    await upstream.addTool(`fresh${Date.now()}`);
    await until(() => holder.listChanged() > before);
    const { tools } = await holder.client.listTools();
    expect(tools.map((t) => t.name)).toContain(`notes__${upstream.tools.at(-1)!.name}`);
    await holder.client.close();
  });
});

/** A session opened with raw requests (initialize, initialized) on `base`: its Mcp-Session-Id. */
async function openSession(base: string, path: string): Promise<string> {
  const headers = { Authorization: `Bearer ${raw}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const init = await fetch(`${base}${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  expect(init.status).toBe(200);
  await init.text();
  const session = init.headers.get('mcp-session-id')!;
  const initialized = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { ...headers, 'Mcp-Session-Id': session },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(initialized.status).toBe(202);
  return session;
}

/** The session's GET stream on `base`, open (its headers come only once its claim is taken), collecting the messages it carries. */
async function openStream(base: string, path: string, session: string) {
  const stop = new AbortController();
  const res = await fetch(`${base}${path}`, {
    headers: { Authorization: `Bearer ${raw}`, Accept: 'text/event-stream', 'Mcp-Session-Id': session },
    signal: stop.signal,
  });
  expect(res.status).toBe(200);
  const messages: { method?: string; params?: { uri?: string } }[] = [];
  const parser = createParser({ onEvent: (event) => void messages.push(JSON.parse(event.data)) });
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  })().catch(() => undefined);
  const updated = () => messages.filter((m) => m.method === 'notifications/resources/updated').map((m) => m.params?.uri);
  return { updated, close: () => stop.abort() };
}

describe('an update the upstream sends right after answering resources/subscribe', () => {
  // keygate's session with the upstream opens with this very subscribe: its GET stream must be open before the subscribe goes.
  it.each([
    ['the replica the subscribe comes to', () => r.aUrl],
    ['another replica', () => r.b.url],
  ])("reaches the client's stream held by %s", async (_case, streamBase) => {
    const session = await openSession(r.aUrl, '/mcp');
    const stream = await openStream(streamBase(), '/mcp', session);
    try {
      expect(await rpc(r.aUrl, '/mcp', session, 'resources/subscribe', { uri: 'keygate://eager/note://a' })).toMatchObject({ result: {} });
      await until(() => stream.updated().length >= 1, 5000);
      expect(stream.updated()).toEqual(['keygate://eager/note://a']);
    } finally {
      stream.close();
    }
  });
});
