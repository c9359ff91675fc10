import { toCallToolResult } from '../../../../../../src/adapters/mcp/tool-presenter';
import { mcpServerPolicy } from '../../../../../../src/application/use-cases/gateway/external/mcp-server-policy';
import { FakeExternalTools } from '../../../../../fakes/fake-external-tools';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { makeCallTool } from '../../../../../support/call-tool-service';

function makeSut(maxServers = 3) {
  const store = new InMemoryResourceStore();
  const sut = makeCallTool(store, { mcp_servers: mcpServerPolicy(maxServers) }, new FakeExternalTools()).sut;
  const run = (args: Record<string, unknown>) =>
    sut.execute({ userId: 'alice', target: { kind: 'built-in', resource: 'mcp_servers' }, arguments: args });
  const create = (name: string, data: Record<string, unknown> = {}) =>
    run({ action: 'create', data: { name, url: 'https://a.example.com/mcp', ...data } });
  return { store, run, create };
}

describe('CallTool on mcp_servers records', () => {
  it('refuses a create past the per-user limit as a tool error, writing nothing', async () => {
    const { store, create } = makeSut(3);
    for (const name of ['a', 'b', 'c']) expect(await create(name)).toMatchObject({ kind: 'value' });
    expect(await create('d')).toEqual({
      kind: 'error',
      message: expect.stringMatching(/already have 3 MCP servers.*MAX_MCP_SERVERS_PER_USER/),
    });
    expect(store.records).toHaveLength(3);
  });

  it('stores an update that moves the url to another host without the old headers', async () => {
    const { store, run, create } = makeSut();
    const created = await create('a', { headers: { Authorization: 'Bearer s3cret' } });
    const id = created.kind === 'value' && created.value.kind === 'record' ? created.value.record.id : '';
    await run({ action: 'update', id, data: { url: 'https://b.example.com/mcp', headers: { Authorization: '********' } } });
    expect(store.records[0].data).toEqual({ name: 'a', url: 'https://b.example.com/mcp', headers: {} });
  });

  it('masks header values in every record it returns, before they leave the use-case; the store keeps them', async () => {
    const { store, run, create } = makeSut();
    const masked = { Authorization: '********' };
    const created = await create('a', { headers: { Authorization: 'Bearer s3cret' } });
    expect(created).toMatchObject({ kind: 'value', value: { kind: 'record', record: { data: { headers: masked } } } });
    const id = store.records[0].id;
    expect(await run({ action: 'get', id })).toMatchObject({ value: { record: { data: { headers: masked } } } });
    expect(await run({ action: 'list' })).toMatchObject({ value: { kind: 'records', records: [{ data: { headers: masked } }] } });
    expect(await run({ action: 'update', id, data: { description: 'd' } })).toMatchObject({
      value: { record: { data: { headers: masked } } },
    });
    expect(JSON.stringify(await run({ action: 'search', data: { text: 'a' } }))).not.toContain('s3cret');
    expect(store.records[0].data.headers).toEqual({ Authorization: 'Bearer s3cret' });
  });
});

describe('CallTool audit events for mcp_servers', () => {
  function makeAudited() {
    const store = new InMemoryResourceStore();
    const { sut, audit, clock } = makeCallTool(store, { mcp_servers: mcpServerPolicy(3) }, new FakeExternalTools());
    const origin = { requestId: 'req-7', ip: '198.51.100.4' };
    const run = (args: Record<string, unknown>) =>
      sut.execute({ userId: 'alice', keyId: 'key-1', origin, target: { kind: 'built-in', resource: 'mcp_servers' }, arguments: args });
    return { store, audit, clock, run };
  }
  const idOf = (outcome: Awaited<ReturnType<ReturnType<typeof makeAudited>['run']>>) =>
    outcome.kind === 'value' && outcome.value.kind === 'record' ? outcome.value.record.id : '';

  it('records mcp_server.created, .updated and .deleted with the name and URL origin, never a header value or the URL path', async () => {
    const { audit, clock, run } = makeAudited();
    const id = idOf(
      await run({
        action: 'create',
        data: { name: 'gh', url: 'https://mcp.example.com/v1?token=abc', headers: { Authorization: 'Bearer s3cret' } },
      }),
    );
    await run({ action: 'update', id, data: { description: 'GitHub' } });
    await run({ action: 'delete', id });
    expect(audit.records.map((r) => r.action)).toEqual(['mcp_server.created', 'mcp_server.updated', 'mcp_server.deleted']);
    expect(audit.records[0]).toEqual({
      action: 'mcp_server.created',
      actor: { type: 'key', id: 'key-1' },
      userId: 'alice',
      keyId: 'key-1',
      target: { type: 'mcp_server', id },
      occurredAt: clock.now(),
      requestId: 'req-7',
      ip: '198.51.100.4',
      details: { name: 'gh', url_origin: 'https://mcp.example.com' },
    });
    expect(audit.records[1].details).toEqual({ name: 'gh', url_origin: 'https://mcp.example.com', changed: ['description'] });
    expect(JSON.stringify(audit.records)).not.toMatch(/s3cret|token=abc/);
  });

  it('records nothing for reads, refused writes, or another resource', async () => {
    const { audit, run } = makeAudited();
    await run({ action: 'list' });
    await run({ action: 'create', data: { name: 'Bad Name', url: 'https://a.example.com' } });
    await run({ action: 'delete', id: '00000000-0000-4000-8000-000000000000' });
    expect(audit.records).toEqual([]);
  });

  it('names the system as the actor of an in-process call without a key', async () => {
    const store = new InMemoryResourceStore();
    const { sut, audit } = makeCallTool(store, {}, new FakeExternalTools());
    await sut.execute({
      userId: 'alice',
      target: { kind: 'built-in', resource: 'mcp_servers' },
      arguments: { action: 'create', data: { name: 'x', url: 'https://x.example.com' } },
    });
    expect(audit.records[0]).toMatchObject({ actor: { type: 'system', id: null }, keyId: null, requestId: null, ip: null });
  });

  it("names the user as the actor of a call made with the user's access token", async () => {
    const store = new InMemoryResourceStore();
    const { sut, audit } = makeCallTool(store, {}, new FakeExternalTools());
    await sut.execute({
      userId: 'alice',
      keyId: null,
      byUser: true,
      target: { kind: 'built-in', resource: 'mcp_servers' },
      arguments: { action: 'create', data: { name: 'x', url: 'https://x.example.com' } },
    });
    expect(audit.records[0]).toMatchObject({ actor: { type: 'user', id: 'alice' }, keyId: null });
  });
});

describe('CallTool and pinned tool definitions of mcp_servers', () => {
  async function makePinned() {
    const store = new InMemoryResourceStore();
    const { sut, audit, pins } = makeCallTool(store, { mcp_servers: mcpServerPolicy(3) }, new FakeExternalTools());
    const run = (args: Record<string, unknown>) =>
      sut.execute({ userId: 'alice', keyId: 'key-1', target: { kind: 'built-in', resource: 'mcp_servers' }, arguments: args });
    await run({ action: 'create', data: { name: 'files', url: 'https://a.example.com/mcp' } });
    const id = store.records[0].id;
    await pins.pinFirst(
      id,
      [
        { tool: 'echo', sha256: 'a'.repeat(64) },
        { tool: 'other', sha256: 'c'.repeat(64) },
      ],
      10,
    );
    await pins.markChanged(id, [{ tool: 'echo', sha256: 'b'.repeat(64) }]);
    return { store, audit, pins, run, id };
  }

  it('shows tool_pins on get, the approved sha256 and, while changed, the seen one', async () => {
    const { run, id } = await makePinned();
    expect(await run({ action: 'get', id })).toMatchObject({
      value: {
        pins: [
          { tool: 'echo', sha256: 'a'.repeat(64), status: 'changed', seenSha256: 'b'.repeat(64) },
          { tool: 'other', sha256: 'c'.repeat(64), status: 'approved', seenSha256: 'c'.repeat(64) },
        ],
      },
    });
  });

  it('approves with update approve_tools: not stored, named in mcp_server.updated, shown approved', async () => {
    const { store, audit, pins, run, id } = await makePinned();
    const updated = await run({ action: 'update', id, data: { approve_tools: ['echo'] } });
    expect(updated).toMatchObject({ value: { pins: [{ tool: 'echo', sha256: 'b'.repeat(64), status: 'approved' }, { tool: 'other' }] } });
    expect(store.records[0].data).toEqual({ name: 'files', url: 'https://a.example.com/mcp' });
    expect((await pins.list(id))[0]).toMatchObject({ status: 'approved', sha256: 'b'.repeat(64) });
    expect(audit.records.at(-1)).toMatchObject({
      action: 'mcp_server.updated',
      details: { changed: ['approve_tools'], approved_tools: [{ tool: 'echo', sha256: 'b'.repeat(64) }] },
    });
  });

  it('ignores tool_pins sent back with the data get showed, storing none of it', async () => {
    const { store, run, id } = await makePinned();
    const got = toCallToolResult(await run({ action: 'get', id }), 420).structuredContent as { record: { data: Record<string, unknown> } };
    const data = got.record.data;
    expect(data).toMatchObject({ tool_pins: expect.any(Object), tool_pins_truncated: true, tool_pins_total: 2 });
    expect(await run({ action: 'update', id, data: { ...data, description: 'files' } })).toMatchObject({ kind: 'value' });
    expect(store.records[0].data).toEqual({ name: 'files', url: 'https://a.example.com/mcp', description: 'files' });
  });

  it('refuses approve_tools naming a tool without a pin as a tool error, recording and approving nothing', async () => {
    const { audit, pins, run, id } = await makePinned();
    const before = audit.records.length;
    expect(await run({ action: 'update', id, data: { approve_tools: ['echo', 'ghost'] } })).toEqual({
      kind: 'error',
      message: 'data.approve_tools[1]: names no tool keygate pinned on this server',
    });
    expect(await run({ action: 'update', id, data: { approve_tools: 'echo' } })).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('data.approve_tools'),
    });
    expect(audit.records).toHaveLength(before);
    expect((await pins.list(id))[0].status).toBe('changed');
  });

  it('approves {name, sha256} only for the definition seen; another sha256 is a tool error that records and approves nothing', async () => {
    const { audit, pins, run, id } = await makePinned();
    const before = audit.records.length;
    expect(
      await run({ action: 'update', id, data: { description: 'x', approve_tools: ['other', { name: 'echo', sha256: 'd'.repeat(64) }] } }),
    ).toEqual({
      kind: 'error',
      message: `data.approve_tools[1]: the definition changed again: keygate now sees sha256 ${'b'.repeat(64)}; get the record and check that one before approving it`,
    });
    expect(audit.records).toHaveLength(before);
    expect((await pins.list(id))[0]).toMatchObject({ status: 'changed', sha256: 'a'.repeat(64) });
    expect(await run({ action: 'update', id, data: { approve_tools: [{ name: 'echo', sha256: 'B'.repeat(64) }] } })).toMatchObject({
      value: { pins: [{ tool: 'echo', sha256: 'b'.repeat(64), status: 'approved' }, { tool: 'other' }] },
    });
    expect(audit.records.at(-1)).toMatchObject({ details: { approved_tools: [{ tool: 'echo', sha256: 'b'.repeat(64) }] } });
  });
});
