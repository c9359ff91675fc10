import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServerFactory } from '../../../../src/adapters/mcp/mcp-server.factory';
import { AllowedCalls } from '../../../../src/adapters/mcp/tool-gate';
import { FilterTools } from '../../../../src/application/use-cases/filter-tools/filter-tools.use-case';
import { ListTools } from '../../../../src/application/use-cases/list-tools/list-tools.use-case';
import { ScopeSet } from '../../../../src/domain/scope';
import { FakeExternalTools } from '../../../fakes/fake-external-tools';
import { InMemoryResourceStore } from '../../../fakes/in-memory-resource.store';
import { makeCallTool } from '../../../support/call-tool-service';

const principal = { keyId: 'k', userId: 'alice', scopes: ScopeSet.parse([]) };

async function makeSut(calls: AllowedCalls) {
  const external = new FakeExternalTools();
  const store = new InMemoryResourceStore();
  const logged: unknown[] = [];
  const factory = new McpServerFactory(new ListTools(new FilterTools(), external), makeCallTool(store, {}, external).sut, (error) => logged.push(error));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await factory.create(principal, calls).connect(serverSide);
  const client = new Client({ name: 'spec', version: '1' });
  await client.connect(clientSide);
  return { external, store, logged, client };
}

describe('McpServerFactory: tools/call', () => {
  it('runs the target the tool gate found, without resolving the name again', async () => {
    const tool = new FakeExternalTools().add('alice', 'files__echo', []);
    const { external, client } = await makeSut(new Map([['files__echo', { kind: 'external', tool }]]));
    const result = await client.callTool({ name: 'files__echo', arguments: { text: 'hi' } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'echo ran' }] });
    expect(external.runs).toEqual([{ tool, args: { text: 'hi' } }]);
    expect(external.resolved).toEqual([]);
    await client.close();
  });

  it('runs a built-in target with the call\'s own arguments', async () => {
    const { store, client } = await makeSut(new Map([['projects', { kind: 'built-in', resource: 'projects' }]]));
    const result = await client.callTool({ name: 'projects', arguments: { action: 'create', data: { n: 1 } } });
    expect(result.structuredContent).toMatchObject({ record: { resource: 'projects', data: { n: 1 } } });
    expect(store.records).toHaveLength(1);
    await client.close();
  });

  it('answers -32602 for a tool the gate found no target for', async () => {
    const { client } = await makeSut(new Map([['nope__x', null]]));
    await expect(client.callTool({ name: 'nope__x', arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: nope__x') });
    await client.close();
  });

  it('runs nothing the gate did not see: an internal error, logged', async () => {
    const { store, logged, client } = await makeSut(new Map());
    await expect(client.callTool({ name: 'projects', arguments: { action: 'create' } })).rejects.toMatchObject({ code: -32603 });
    expect(store.records).toEqual([]);
    expect(String(logged[0])).toContain('without passing the tool gate');
    await client.close();
  });
});
