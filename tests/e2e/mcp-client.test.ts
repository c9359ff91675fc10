import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResult, ListToolsResultSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { makeKey, TestKey } from '../support/mcp-keys';
import { connectClient, listen } from '../support/mcp-client';
import { startTestApp, TestApp } from '../support/test-app';

let t: TestApp;
let server: { url: string; close(): Promise<void> };
const clients: Client[] = [];
beforeAll(async () => {
  t = await startTestApp();
  server = await listen(t.app);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.close();
  await t.close();
});

async function clientFor(key: TestKey, header: 'bearer' | 'x-api-key' = 'bearer'): Promise<Client> {
  const headers: Record<string, string> = header === 'bearer' ? { Authorization: `Bearer ${key.raw}` } : { 'X-API-Key': key.raw };
  const client = await connectClient(server.url, headers);
  clients.push(client);
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();
const value = (result: unknown) => (result as CallToolResult).structuredContent as Record<string, any>;

describe('MCP over Streamable HTTP with the official SDK client', () => {
  it('initializes: latest protocol, server name and version, the tools capability', async () => {
    const client = await clientFor(await makeKey(t));
    expect(client.getServerVersion()).toEqual({ name: 'keygate', version: expect.any(String) });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {} });
    expect((client.transport as { protocolVersion?: string }).protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    await expect(client.ping()).resolves.toEqual({});
  });

  it('shows a refused call as the SDK client words it, with its prefix once', async () => {
    const client = await clientFor(await makeKey(t));
    await expect(client.callTool({ name: 'weather', arguments: {} })).rejects.toThrow(/^MCP error -32602: Unknown tool: weather$/);
    await expect(client.listTools({ cursor: 'abc' })).rejects.toThrow(/^MCP error -32602: cursor: was never issued/);
  });

  it.each([
    [[], ['agents', 'chat', 'mcp_servers', 'models', 'projects', 'routines']],
    [['projects:read'], ['projects']],
    [['agents:write'], ['agents']],
    [
      ['chat:read', 'models:write'],
      ['chat', 'models'],
    ],
    [
      ['mcp_servers:read', 'mcp_servers:write', 'routines:write'],
      ['mcp_servers', 'routines'],
    ],
  ])('a key with scopes %j lists exactly %j', async (scopes, expected) => {
    expect(await names(await clientFor(await makeKey(t, scopes), 'x-api-key'))).toEqual(expected);
  });

  it('describes each built-in tool with its actions, subresources and annotations', async () => {
    const { tools } = await (await clientFor(await makeKey(t))).listTools();
    const agents = tools.find((tool) => tool.name === 'agents')!;
    expect(agents.description).toMatch(/agents:write/);
    expect(agents.inputSchema.properties).toMatchObject({
      action: { enum: ['get', 'list', 'search', 'query', 'create', 'update', 'delete', 'assign', 'unassign', 'execute'] },
      subresource: { enum: ['prompt', 'scopes', 'abilities', 'context_blocks', 'mcp'] },
    });
    expect(agents.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(tools.find((tool) => tool.name === 'models')!.inputSchema.properties).not.toHaveProperty('subresource');
  });

  it('narrows the list with agent_scopes, and never widens it', async () => {
    const client = await clientFor(await makeKey(t, ['projects:write', 'agents:read']));
    const list = async (agentScopes: string[]) =>
      (await client.request({ method: 'tools/list', params: { agent_scopes: agentScopes } }, ListToolsResultSchema)).tools
        .map((tool) => tool.name)
        .sort();
    expect(await list(['projects:read'])).toEqual(['projects']);
    expect(await list(['projects:read', 'chat:write'])).toEqual(['projects']);
    expect(await list(['models:read'])).toEqual([]);
    expect(await list([])).toEqual(['agents', 'projects']);
  });

  it('runs the spec 4.4 examples: prompt get with agents:read, mcp assign with agents:write', async () => {
    const owner = await makeKey(t);
    const full = await clientFor(owner);
    const agent = value(await full.callTool({ name: 'agents', arguments: { action: 'create', data: { name: 'planner' } } })).record;
    await full.callTool({
      name: 'agents',
      arguments: { action: 'create', subresource: 'prompt', id: agent.id, data: { text: 'Plan well.' } },
    });
    const server = value(
      await full.callTool({
        name: 'mcp_servers',
        arguments: { action: 'create', data: { name: 'files', url: 'https://files.example.com/mcp' } },
      }),
    ).record;

    const reader = await clientFor(await makeKey(t, ['agents:read'], owner.user));
    const prompt = await reader.callTool({ name: 'agents', arguments: { action: 'get', subresource: 'prompt', id: agent.id } });
    expect(value(prompt).records.map((r: { data: unknown }) => r.data)).toEqual([{ text: 'Plan well.' }]);
    expect(JSON.parse(((prompt as CallToolResult).content[0] as { text: string }).text)).toEqual(value(prompt));
    await expect(
      reader.callTool({
        name: 'agents',
        arguments: { action: 'assign', subresource: 'mcp', id: agent.id, data: { target_id: server.id } },
      }),
    ).rejects.toThrow(/403|agents:write/);

    const writer = await clientFor(await makeKey(t, ['agents:write'], owner.user));
    const assigned = value(
      await writer.callTool({
        name: 'agents',
        arguments: { action: 'assign', subresource: 'mcp', id: agent.id, data: { target_id: server.id } },
      }),
    );
    expect(assigned.record).toMatchObject({
      parent_id: agent.id,
      subresource: 'mcp',
      data: { target_id: server.id, target_resource: 'mcp_servers' },
    });
    const listed = value(await writer.callTool({ name: 'agents', arguments: { action: 'list', subresource: 'mcp', id: agent.id } }));
    expect(listed.records).toHaveLength(1);
  });

  it("creates, reads, lists, searches, queries, updates and deletes records of the key's user", async () => {
    const client = await clientFor(await makeKey(t, ['projects:write']));
    const run = async (args: Record<string, unknown>) => value(await client.callTool({ name: 'projects', arguments: args }));
    const a = (await run({ action: 'create', data: { name: 'apollo', status: 'active' } })).record;
    const b = (await run({ action: 'create', data: { name: 'gemini', status: 'done' } })).record;
    expect((await run({ action: 'get', id: a.id })).record.data).toEqual({ name: 'apollo', status: 'active' });
    expect((await run({ action: 'list' })).records.map((r: { id: string }) => r.id)).toEqual([a.id, b.id]);
    expect((await run({ action: 'search', data: { text: 'GEMI' } })).records.map((r: { id: string }) => r.id)).toEqual([b.id]);
    expect((await run({ action: 'query', data: { where: { status: 'active' } } })).records.map((r: { id: string }) => r.id)).toEqual([
      a.id,
    ]);
    expect((await run({ action: 'update', id: a.id, data: { status: 'paused' } })).record.data).toEqual({
      name: 'apollo',
      status: 'paused',
    });
    const task = (await run({ action: 'create', subresource: 'tasks', id: a.id, data: { title: 'launch' } })).record;
    expect((await run({ action: 'execute', id: a.id, data: { dry_run: true } })).execution).toMatchObject({
      subresource: 'executions',
      data: { status: 'queued' },
    });
    expect((await run({ action: 'delete', id: a.id })).deleted).toBe(a.id);
    const gone = await client.callTool({
      name: 'projects',
      arguments: { action: 'get', subresource: 'tasks', id: a.id, data: { item_id: task.id } },
    });
    expect(gone).toMatchObject({ isError: true });
  });

  it("never shows one user's records to another user's key", async () => {
    const alice = await clientFor(await makeKey(t));
    const bob = await clientFor(await makeKey(t));
    const secret = value(await alice.callTool({ name: 'models', arguments: { action: 'create', data: { name: 'secret' } } })).record;
    const read = await bob.callTool({ name: 'models', arguments: { action: 'get', id: secret.id } });
    expect(read).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/not found/) }] });
    expect(value(await bob.callTool({ name: 'models', arguments: { action: 'list' } })).records).toEqual([]);
    expect(await bob.callTool({ name: 'models', arguments: { action: 'delete', id: secret.id } })).toMatchObject({ isError: true });
    expect(value(await alice.callTool({ name: 'models', arguments: { action: 'get', id: secret.id } })).record.id).toBe(secret.id);
  });
});
