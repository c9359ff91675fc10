import { CallTool } from '../../../../../src/application/use-cases/tools/call-tool.use-case';
import { mcpServerPolicy } from '../../../../../src/application/use-cases/tools/external/mcp-server-policy';
import { FakeExternalTools } from '../../../../fakes/fake-external-tools';
import { InMemoryResourceStore } from '../../../../fakes/in-memory-resource.store';

function makeSut(maxServers = 3) {
  const store = new InMemoryResourceStore();
  const sut = new CallTool(store, { mcp_servers: mcpServerPolicy(maxServers) }, new FakeExternalTools());
  const run = (args: Record<string, unknown>) => sut.execute({ userId: 'alice', target: { kind: 'built-in', resource: 'mcp_servers' }, arguments: args });
  const create = (name: string, data: Record<string, unknown> = {}) =>
    run({ action: 'create', data: { name, url: 'https://a.example.com/mcp', ...data } });
  return { store, run, create };
}

describe('CallTool on mcp_servers records', () => {
  it('refuses a create past the per-user limit as a tool error, writing nothing', async () => {
    const { store, create } = makeSut(3);
    for (const name of ['a', 'b', 'c']) expect(await create(name)).toMatchObject({ kind: 'value' });
    expect(await create('d')).toEqual({ kind: 'error', message: expect.stringMatching(/already have 3 MCP servers.*MAX_MCP_SERVERS_PER_USER/) });
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
    expect(await run({ action: 'update', id, data: { description: 'd' } })).toMatchObject({ value: { record: { data: { headers: masked } } } });
    expect(JSON.stringify(await run({ action: 'search', data: { text: 'a' } }))).not.toContain('s3cret');
    expect(store.records[0].data.headers).toEqual({ Authorization: 'Bearer s3cret' });
  });
});
