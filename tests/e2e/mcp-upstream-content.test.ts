import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { makeKey, rpc, TestKey } from '../support/mcp-keys';
import { connectClient, listen } from '../support/mcp-client';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

/**
 * The owner's upstream servers' resources, templates, prompts and completion
 * on /mcp, through the official SDK client and two real upstream MCP servers
 * that serve the same URIs and prompt names: `files` (resource_scopes and
 * prompt_scopes guard its secrets with chat:read) and `docs` (no scope maps).
 */
let t: TestApp;
let app: { url: string; close(): Promise<void> };
let one: UpstreamMcpServer;
let two: UpstreamMcpServer;
let owner: TestKey;
const clients: Client[] = [];
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '2000' });
  app = await listen(t.app);
  [one, two] = await Promise.all([startUpstream('one'), startUpstream('two')]);
  owner = await makeKey(t);
  const full = await clientFor(owner);
  for (const data of [
    { name: 'files', url: one.url, resource_scopes: { 'file:///secret/{name}': ['chat:read'] }, prompt_scopes: { vault: ['chat:read'] } },
    { name: 'docs', url: two.url },
  ]) {
    const created = await full.callTool({ name: 'mcp_servers', arguments: { action: 'create', data } });
    expect(created.isError).toBeFalsy();
  }
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([one.stop(), two.stop()]);
  await app.close();
  await t.close();
});

async function clientFor(key: TestKey): Promise<Client> {
  const client = await connectClient(app.url, { Authorization: `Bearer ${key.raw}` });
  clients.push(client);
  return client;
}
const keyOf = (...scopes: string[]) => makeKey(t, scopes, owner.user);
const texts = (result: { contents: unknown[] }) => result.contents.map((c) => c as { uri: string; text: string });
const uris = async (client: Client) => (await client.listResources()).resources.map((r) => r.uri);
const prompts = async (client: Client) => (await client.listPrompts()).prompts.map((p) => p.name);
const read = (key: TestKey, uri: string) => rpc(t, key, { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } }).expect(200);

describe('capabilities', () => {
  it('declares resources (subscribe and listChanged), prompts and completions beside tools (list_changed on the session stream) and logging', async () => {
    const client = await clientFor(owner);
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      logging: {},
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
  });
});

describe('naming: keygate://<server>/<uri> and <server>__<prompt>', () => {
  it("lists both upstreams' resources and templates under their own server, so the same URIs do not collide", async () => {
    const client = await clientFor(owner);
    expect(await uris(client)).toEqual([
      'keygate://files/file:///notes/a.txt',
      'keygate://files/file:///secret/s.txt',
      'keygate://docs/file:///notes/a.txt',
      'keygate://docs/file:///secret/s.txt',
    ]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual(
      expect.arrayContaining([
        { uriTemplate: 'keygate://docs/file:///notes/{name}', name: 'note', mimeType: 'text/plain' },
        { uriTemplate: 'keygate://files/file:///secret/{name}', name: 'secret', mimeType: 'text/plain' },
      ]),
    );
    expect(resourceTemplates).toHaveLength(4);
  });

  it('reads through the namespace from the upstream it names, the contents carrying the namespaced URI', async () => {
    const client = await clientFor(owner);
    expect(texts(await client.readResource({ uri: 'keygate://files/file:///notes/a.txt' }))).toEqual([
      { uri: 'keygate://files/file:///notes/a.txt', mimeType: 'text/plain', text: 'one: file:///notes/a.txt' },
    ]);
    // A URI from a template, never listed.
    expect(texts(await client.readResource({ uri: 'keygate://docs/file:///notes/zz.txt' }))).toEqual([
      { uri: 'keygate://docs/file:///notes/zz.txt', mimeType: 'text/plain', text: 'two: file:///notes/zz.txt' },
    ]);
  });

  it('lists, gets and completes prompts as <server>__<prompt>, each from its own upstream', async () => {
    const client = await clientFor(owner);
    expect(await prompts(client)).toEqual(['files__greet', 'files__vault', 'docs__greet', 'docs__vault']);
    expect((await client.getPrompt({ name: 'docs__greet', arguments: { who: 'you' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'two greets you' } },
    ]);
    expect((await client.getPrompt({ name: 'files__greet', arguments: { who: 'me' } })).messages[0].content).toEqual({
      type: 'text',
      text: 'one greets me',
    });
    const byPrompt = await client.complete({ ref: { type: 'ref/prompt', name: 'docs__greet' }, argument: { name: 'who', value: 'w' } });
    expect(byPrompt.completion.values).toEqual(['two:world', 'two:wendy']);
    const byTemplate = await client.complete({
      ref: { type: 'ref/resource', uri: 'keygate://files/file:///notes/{name}' },
      argument: { name: 'name', value: 'b' },
    });
    expect(byTemplate.completion.values).toEqual(['one:b.txt']);
  });
});

describe('scopes: resource_scopes and prompt_scopes, else mcp_servers:read', () => {
  it('shows a key without mcp_servers:read only what the maps grant it, and reads what the template guards', async () => {
    const chat = await keyOf('chat:read');
    const client = await clientFor(chat);
    expect(await uris(client)).toEqual(['keygate://files/file:///secret/s.txt']);
    expect((await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)).toEqual([
      'keygate://files/file:///secret/{name}',
    ]);
    expect(await prompts(client)).toEqual(['files__vault']);
    expect(texts(await client.readResource({ uri: 'keygate://files/file:///secret/x.txt' }))[0].text).toBe('one: file:///secret/x.txt');
    expect((await client.getPrompt({ name: 'files__vault' })).messages[0].content).toEqual({ type: 'text', text: 'one vaults nobody' });
    await expect(client.readResource({ uri: 'keygate://files/file:///notes/a.txt' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.readResource({ uri: 'keygate://docs/file:///secret/s.txt' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.getPrompt({ name: 'docs__greet' })).rejects.toMatchObject({ code: -32602 });
  });

  it('hides the guarded items from mcp_servers:read, which sees everything else', async () => {
    const client = await clientFor(await keyOf('mcp_servers:read'));
    expect(await uris(client)).toEqual([
      'keygate://files/file:///notes/a.txt',
      'keygate://docs/file:///notes/a.txt',
      'keygate://docs/file:///secret/s.txt',
    ]);
    expect(await prompts(client)).toEqual(['files__greet', 'docs__greet', 'docs__vault']);
    await expect(
      client.complete({
        ref: { type: 'ref/resource', uri: 'keygate://files/file:///secret/{name}' },
        argument: { name: 'name', value: '' },
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('sees nothing with neither, and contacts no upstream for it', async () => {
    const client = await clientFor(await keyOf('projects:read'));
    const seen = one.seenMethods.length + two.seenMethods.length;
    expect(await uris(client)).toEqual([]);
    expect(await prompts(client)).toEqual([]);
    expect(one.seenMethods.length + two.seenMethods.length).toBe(seen);
  });

  it('answers a hidden resource exactly as one that does not exist, without asking the upstream', async () => {
    const reader = await keyOf('mcp_servers:read');
    one.seenMethods.length = 0;
    const hidden = (await read(reader, 'keygate://files/file:///secret/s.txt')).body;
    expect(one.seenMethods).toEqual([]);
    const missing = (await read(reader, 'keygate://files/file:///nowhere')).body;
    expect(one.seenMethods).toEqual(['resources/read']);
    expect(hidden.error).toEqual({
      code: -32002,
      message: 'Resource not found: keygate://files/file:///secret/s.txt',
      data: { uri: 'keygate://files/file:///secret/s.txt' },
    });
    expect(missing.error).toEqual({
      code: -32002,
      message: 'Resource not found: keygate://files/file:///nowhere',
      data: { uri: 'keygate://files/file:///nowhere' },
    });
  });
});

describe('unknown and foreign names', () => {
  it.each(['file:///notes/a.txt', 'keygate://nobody/file:///notes/a.txt', 'keygate://files', 'https://files/file:///notes/a.txt'])(
    'answers a read of %s with -32002',
    async (uri) => {
      expect((await read(owner, uri)).body.error).toMatchObject({ code: -32002, data: { uri } });
    },
  );

  it("answers another user's server names as unknown", async () => {
    const stranger = await clientFor(await makeKey(t));
    await expect(stranger.readResource({ uri: 'keygate://files/file:///notes/a.txt' })).rejects.toMatchObject({ code: -32002 });
    await expect(stranger.getPrompt({ name: 'files__greet' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown prompt: files__greet'),
    });
    await expect(
      stranger.complete({ ref: { type: 'ref/prompt', name: 'files__greet' }, argument: { name: 'who', value: '' } }),
    ).rejects.toMatchObject({ code: -32602 });
    expect(await uris(stranger)).toEqual([]);
  });

  it('answers unknown prompts and refs, and params of the wrong type, with -32602', async () => {
    const client = await clientFor(owner);
    for (const name of ['greet', 'nobody__greet', 'files__nothing']) {
      await expect(client.getPrompt({ name })).rejects.toMatchObject({ code: -32602 });
    }
    const wrong = await rpc(t, owner, { jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri: 42 } }).expect(200);
    expect(wrong.body.error).toMatchObject({ code: -32602, data: [{ field: 'uri' }] });
    const badCursor = await rpc(t, owner, { jsonrpc: '2.0', id: 8, method: 'prompts/list', params: { cursor: 'x' } }).expect(200);
    expect(badCursor.body.error).toMatchObject({ code: -32602, data: [{ field: 'cursor' }] });
  });
});
