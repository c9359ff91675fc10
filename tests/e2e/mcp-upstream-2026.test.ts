import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { call, makeKey, rpc, TestKey } from '../support/mcp-keys';
import { connectClient, listen } from '../support/mcp-client';
import { eventually } from '../support/replica';
import { startTestApp, TestApp } from '../support/test-app';
import { startV2Upstream, V2Upstream } from '../support/v2-upstream';

/**
 * Upstreams built with the SDK v2, through keygate to a 2025 client (the v1
 * SDK client in a session): `modern` speaks 2026-07-28 only, `dual` both eras,
 * `legacy` is the v1 upstream, `mute` stops answering. keygate learns each
 * one's revision and talks 2026 to the ones that serve only it, and to a
 * dual-era one in the client's own revision; scopes, the namespace and audit
 * are the same for all.
 */
let t: TestApp;
let app: { url: string; close(): Promise<void> };
let modern: V2Upstream;
let dual: V2Upstream;
let legacy: V2Upstream;
let mute: V2Upstream;
let owner: TestKey;
const clients: Client[] = [];
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '1500' });
  app = await listen(t.app);
  [modern, dual, legacy, mute] = await Promise.all([
    startV2Upstream('modern'),
    startV2Upstream('dual'),
    startV2Upstream('legacy'),
    startV2Upstream('modern', 'mute'),
  ]);
  mute.silent = true;
  owner = await makeKey(t);
  const full = await clientFor(owner);
  for (const [name, upstream] of [
    ['modern', modern],
    ['dual', dual],
    ['legacy', legacy],
    ['mute', mute],
  ] as const) {
    const data = { name, url: upstream.url, tool_scopes: { secret: ['chat:read'] } };
    expect((await full.callTool({ name: 'mcp_servers', arguments: { action: 'create', data } })).isError).toBeFalsy();
  }
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([modern, dual, legacy, mute].map((u) => u.stop()));
  await app.close();
  await t.close();
});

async function clientFor(key: TestKey, path = ''): Promise<Client> {
  const client = await connectClient(`${app.url}${path}`, { Authorization: `Bearer ${key.raw}` });
  clients.push(client);
  return client;
}
/** A 2025 client in a session that declares `capabilities` and answers elicitation with Ada, sampling with "4" and roots with one root, keeping what it was asked. */
async function askedClient(key: TestKey, capabilities: Record<string, unknown>, path = ''): Promise<{ client: Client; asked: unknown[] }> {
  const asked: unknown[] = [];
  const client = new Client({ name: 'asked', version: '1.0.0' }, { capabilities });
  if ('elicitation' in capabilities)
    client.setRequestHandler(
      ElicitRequestSchema,
      async (request) => (asked.push(request.params), { action: 'accept', content: { name: 'Ada' } }),
    );
  if ('sampling' in capabilities)
    client.setRequestHandler(
      CreateMessageRequestSchema,
      async (request) => (asked.push(request.params), { role: 'assistant', content: { type: 'text', text: '4' }, model: 'test' }),
    );
  if ('roots' in capabilities)
    client.setRequestHandler(
      ListRootsRequestSchema,
      async (request) => (asked.push(request.method), { roots: [{ uri: 'file:///work', name: 'work' }] }),
    );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${app.url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${key.raw}` } } }),
  );
  clients.push(client);
  return { client, asked };
}
const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

describe('a 2026-07-28-only upstream on /mcp', () => {
  it('lists its tools, filtered by tool_scopes, having asked it in 2026 only', async () => {
    expect(await names(await clientFor(owner))).toEqual(
      expect.arrayContaining(['modern__ask', 'modern__count', 'modern__echo', 'modern__secret', 'modern__think']),
    );
    expect(await names(await clientFor(await makeKey(t, ['mcp_servers:read'], owner.user)))).toEqual(
      expect.arrayContaining(['modern__echo']),
    );
    expect(await names(await clientFor(await makeKey(t, ['mcp_servers:read'], owner.user)))).not.toContain('modern__secret');
    expect(await names(await clientFor(await makeKey(t, ['chat:read'], owner.user)))).toEqual([
      'chat',
      'dual__secret',
      'legacy__secret',
      'modern__secret',
    ]);
    expect(modern.seen.length).toBeGreaterThan(0);
    expect(modern.seen.every((seen) => seen.endsWith(' modern'))).toBe(true);
  });

  it('runs a permitted tool and relays its result as a 2025 one, audited; refuses one the key lacks scopes for', async () => {
    const result = await (await clientFor(owner)).callTool({ name: 'modern__echo', arguments: { text: 'hello' } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'modern: hello' }] });
    const rows: { action: string }[] = await t.db.dataSource.query(
      'SELECT action FROM audit_events WHERE user_id = $1 AND target_id = $2',
      [owner.user, 'modern__echo'],
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.action.startsWith('tool.'))).toBe(true);
    const reader = await makeKey(t, ['mcp_servers:write'], owner.user);
    expect((await rpc(t, reader, call(1, 'modern__secret')).expect(403)).headers['www-authenticate']).toContain('scope="chat:read"');
    const chat = await makeKey(t, ['chat:read'], owner.user);
    expect(text((await rpc(t, chat, call(1, 'modern__secret')).expect(200)).body.result)).toBe('modern: the secret');
  });

  it("relays its progress during a call, under the client's own token", async () => {
    const progress: number[] = [];
    const result = await (
      await clientFor(owner)
    ).callTool({ name: 'modern__count', arguments: {} }, undefined, { onprogress: (p) => void progress.push(p.progress) });
    expect(text(result)).toBe('modern: counted');
    expect(progress).toEqual([1, 2]);
  });

  it('answers a call the upstream wants input for with a tool error saying keygate cannot relay it yet', async () => {
    const result = await (await clientFor(owner)).callTool({ name: 'modern__ask', arguments: {} });
    expect(result).toMatchObject({ isError: true });
    expect(text(result)).toMatch(/asked for input.*cannot relay from a 2026-07-28 server yet/);
  });

  it('reads its resources and gets its prompts through the namespace', async () => {
    const client = await clientFor(owner);
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain('keygate://modern/file:///notes/a.txt');
    const read = await client.readResource({ uri: 'keygate://modern/file:///notes/zz.txt' });
    expect(read.contents).toEqual([
      { uri: 'keygate://modern/file:///notes/zz.txt', mimeType: 'text/plain', text: 'modern: file:///notes/zz.txt' },
    ]);
    expect((await client.getPrompt({ name: 'modern__greet', arguments: { who: 'you' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'modern greets you' } },
    ]);
  });
});

describe('input a 2026-07-28-only upstream asks for during a call, relayed to a 2025 client session', () => {
  it.each([
    ['/mcp', '', 'modern__'],
    ['/mcp/servers/modern', '/servers/modern', ''],
  ])('on %s: elicitation and sampling reach the client, its answers the upstream', async (_label, path, prefix) => {
    const { client, asked } = await askedClient(owner, { elicitation: {}, sampling: {} }, path);
    modern.clientCapabilities.length = 0;
    const progress: unknown[] = [];
    expect(await client.callTool({ name: `${prefix}ask`, arguments: {} }, undefined, { onprogress: (p) => void progress.push(p) })).toEqual(
      { content: [{ type: 'text', text: 'modern: accept {"name":"Ada"}' }] },
    );
    // The SDK reports each fulfilled round as progress of its own; the client gets only the upstream's (none here).
    expect(progress).toEqual([]);
    expect(asked).toEqual([
      expect.objectContaining({
        message: 'Your name?',
        requestedSchema: expect.objectContaining({ properties: { name: { type: 'string' } } }),
      }),
    ]);
    expect(await client.callTool({ name: `${prefix}think`, arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'modern: the model said {"type":"text","text":"4"}' }],
    });
    expect(asked[1]).toMatchObject({ messages: [{ role: 'user', content: { type: 'text', text: '2 + 2?' } }], maxTokens: 5 });
    // Both rounds of both calls declared what the client declared, cut to what keygate relays.
    expect(modern.clientCapabilities).toHaveLength(4);
    for (const declared of modern.clientCapabilities) expect(declared).toEqual({ elicitation: {}, sampling: {} });
  });

  it('relays roots/list to a client that declared roots', async () => {
    const { client, asked } = await askedClient(owner, { roots: {} });
    modern.clientCapabilities.length = 0;
    expect(text(await client.callTool({ name: 'modern__where', arguments: {} }))).toBe('modern: roots file:///work');
    expect(asked).toEqual(['roots/list']);
    expect(modern.clientCapabilities[0]).toEqual({ roots: {} });
  });

  it('declares only what the client declared: a request for a capability it lacks is the tool error, and nothing is asked', async () => {
    const { client, asked } = await askedClient(owner, { elicitation: {}, experimental: { other: {} } });
    modern.clientCapabilities.length = 0;
    const result = await client.callTool({ name: 'modern__think', arguments: {} });
    expect(result).toMatchObject({ isError: true });
    expect(text(result)).toMatch(/asked for input.*cannot relay from a 2026-07-28 server yet/);
    expect(asked).toEqual([]);
    expect(modern.clientCapabilities[0]).toEqual({ elicitation: {} });
    expect(text(await client.callTool({ name: 'modern__ask', arguments: {} }))).toBe('modern: accept {"name":"Ada"}');
  });

  it("ends the call with a tool error when the client answers the upstream's request with an error", async () => {
    const client = new Client({ name: 'refuser', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      throw new Error('not now');
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(app.url), { requestInit: { headers: { Authorization: `Bearer ${owner.raw}` } } }),
    );
    clients.push(client);
    const result = await client.callTool({ name: 'modern__ask', arguments: {} });
    expect(result).toMatchObject({ isError: true });
    expect(text(result)).toMatch(/^The MCP server modern asked for input the client did not give: .*not now/);
  });

  it('declares nothing for a client that declared nothing, and keeps the tool error, on both endpoints', async () => {
    for (const [path, name] of [
      ['', 'modern__ask'],
      ['/servers/modern', 'ask'],
    ]) {
      const result = await (await clientFor(owner, path)).callTool({ name, arguments: {} });
      expect(text(result)).toMatch(/asked for input.*cannot relay from a 2026-07-28 server yet/);
    }
  });
});

describe('a 2026-07-28-only upstream on /mcp/servers/<name>', () => {
  it('declares what it relays of its capabilities and serves its tools, resources, prompts and completion', async () => {
    const client = await clientFor(owner, '/servers/modern');
    // It declares logging too, which keygate does not relay from a 2026 upstream yet; subscribe and listChanged go through its listen (mcp-modern-listen.test.ts).
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    expect(await names(client)).toEqual(['ask', 'both', 'count', 'echo', 'forever', 'log', 'note', 'secret', 'steps', 'think', 'where']);
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'there' } }))).toBe('modern: there');
    expect((await client.readResource({ uri: 'file:///notes/a.txt' })).contents[0]).toMatchObject({ text: 'modern: file:///notes/a.txt' });
    expect((await client.getPrompt({ name: 'greet', arguments: { who: 'me' } })).messages[0].content).toEqual({
      type: 'text',
      text: 'modern greets me',
    });
    const completed = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'w' } });
    expect(completed.completion.values).toEqual(['modern:world', 'modern:wendy']);
    const chat = await clientFor(await makeKey(t, ['chat:read'], owner.user), '/servers/modern');
    expect(await names(chat)).toEqual(['secret']);
  });
});

describe('a dual-era upstream', () => {
  // A listing is loaded once per record version for every client, so its era is the one of contacts outside a 2025 session.
  const onlyEra = (era: string) => {
    const calls = dual.seen.filter((seen) => !seen.startsWith('tools/list'));
    return calls.length > 0 && calls.every((seen) => seen.endsWith(` ${era}`));
  };

  it('is spoken to in 2025 within a 2025 client session, so its log messages and subscription updates reach the session', async () => {
    dual.seen.length = 0;
    const client = new Client({ name: 'dual-2025', version: '1.0.0' });
    const logs: unknown[] = [];
    const updated: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    // A key of its own: the owner's has more GET streams open than one key may (MCP_MAX_STREAMS_PER_KEY).
    const fresh = await makeKey(t, [], owner.user);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/servers/dual`), {
        requestInit: { headers: { Authorization: `Bearer ${fresh.raw}` } },
      }),
    );
    clients.push(client);
    expect(client.getServerCapabilities()).toMatchObject({ logging: {}, resources: { subscribe: true } });
    expect(text(await client.callTool({ name: 'note', arguments: {} }))).toBe('dual: noted');
    expect(logs).toEqual(['dual: noted']);
    await client.subscribeResource({ uri: 'file:///notes/a.txt' });
    // Each call changes the resource; keygate follows the upstream's stream from the subscription on.
    await eventually(async () => (await client.callTool({ name: 'note', arguments: {} }), updated.length > 0), 5000, 50);
    expect(updated[0]).toBe('file:///notes/a.txt');
    expect(dual.seen).toEqual(expect.arrayContaining(['tools/call legacy', 'resources/subscribe legacy']));
    expect(onlyEra('legacy')).toBe(true);
  }, 15_000);

  it('is spoken to in 2025 for a 2025 session on /mcp too', async () => {
    dual.seen.length = 0;
    expect(text(await (await clientFor(owner)).callTool({ name: 'dual__echo', arguments: { text: 'both' } }))).toBe('dual: both');
    expect(dual.seen).toContain('tools/call legacy');
    expect(onlyEra('legacy')).toBe(true);
  });

  it('is spoken to in 2026 for a 2026-07-28 client of the same record, on both endpoints', async () => {
    for (const [path, tool] of [
      ['/servers/dual', 'echo'],
      ['', 'dual__echo'],
    ]) {
      dual.seen.length = 0;
      const client = new ClientV2({ name: 'dual-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(
        new TransportV2(new URL(`${app.url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${owner.raw}` } } }),
      );
      expect(text(await client.callTool({ name: tool, arguments: { text: 'new' } }))).toBe('dual: new');
      await client.close();
      expect(dual.seen).toContain('tools/call modern');
      expect(onlyEra('modern')).toBe(true);
    }
  });
});

describe('other upstreams', () => {
  it("probes an upstream once per record version, and never shares a verdict with another user's record of it", async () => {
    expect(modern.discovers).toBe(1);
    const stranger = await makeKey(t);
    const data = { name: 'theirs', url: modern.url };
    expect(
      (await (await clientFor(stranger)).callTool({ name: 'mcp_servers', arguments: { action: 'create', data } })).isError,
    ).toBeFalsy();
    expect(text(await (await clientFor(stranger)).callTool({ name: 'theirs__echo', arguments: { text: 'mine' } }))).toBe('modern: mine');
    expect(modern.discovers).toBe(2);
    expect(text(await (await clientFor(owner)).callTool({ name: 'modern__echo', arguments: { text: 'again' } }))).toBe('modern: again');
    expect(modern.discovers).toBe(2);
  });

  it('keeps talking 2025 to a 2025 upstream, as before', async () => {
    const client = await clientFor(owner);
    expect(await client.callTool({ name: 'legacy__echo', arguments: { text: 'old' } })).toMatchObject({
      content: [{ type: 'text', text: 'old' }],
      structuredContent: { text: 'old' },
    });
    const own = await clientFor(owner, '/servers/legacy');
    expect((await own.readResource({ uri: 'file:///notes/a.txt' })).contents[0]).toMatchObject({ text: 'legacy: file:///notes/a.txt' });
  });

  it('leaves an upstream that stops answering out, the others listed and callable', async () => {
    const client = await clientFor(owner);
    const listed = await names(client);
    expect(listed).toEqual(expect.arrayContaining(['modern__echo', 'dual__echo', 'legacy__echo']));
    expect(listed.some((name) => name.startsWith('mute__'))).toBe(false);
    expect(await client.callTool({ name: 'mute__echo', arguments: {} })).toMatchObject({ isError: true });
    expect(text(await client.callTool({ name: 'modern__echo', arguments: { text: 'still' } }))).toBe('modern: still');
  });
});
