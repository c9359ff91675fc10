import { Resource } from '../../../../../../src/domain/scope';
import { FakeExternalTools } from '../../../../../fakes/fake-external-tools';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { makeCallTool } from '../../../../../support/call-tool-service';

function makeSut() {
  const store = new InMemoryResourceStore();
  const external = new FakeExternalTools();
  const sut = makeCallTool(store, {}, external).sut;
  const run = (resource: Resource, args: Record<string, unknown>, userId = 'alice') =>
    sut.execute({ userId, target: { kind: 'built-in', resource }, arguments: args });
  const value = async (resource: Resource, args: Record<string, unknown>, userId = 'alice') => {
    const outcome = await run(resource, args, userId);
    if (outcome.kind !== 'value') throw new Error(JSON.stringify(outcome));
    return outcome.value as Record<string, any>;
  };
  return { store, external, sut, run, value };
}

describe('CallTool', () => {
  it('runs an external target as it was resolved, without looking it up again', async () => {
    const { store, external, sut } = makeSut();
    const tool = external.add('alice', 'files__echo', ['mcp_servers:write']);
    const outcome = await sut.execute({ userId: 'alice', target: { kind: 'external', tool }, arguments: { text: 'hi' } });
    expect(outcome).toEqual({ kind: 'relayed', result: { content: [{ type: 'text', text: 'echo ran' }] } });
    expect(external.runs).toEqual([{ tool, args: { text: 'hi' } }]);
    expect(external.resolved).toEqual([]);
    expect(store.records).toHaveLength(0);
  });

  it('merges updates into stored data', async () => {
    const { value } = makeSut();
    const { record } = await value('models', { action: 'create', data: { name: 'm', size: 1 } });
    expect((await value('models', { action: 'update', id: record.id, data: { size: 2 } })).record.data).toEqual({ name: 'm', size: 2 });
  });

  it('keeps items under their parent and deletes them with it', async () => {
    const { store, value } = makeSut();
    const { record: routine } = await value('routines', { action: 'create', data: { name: 'nightly' } });
    const { record: step } = await value('routines', { action: 'create', subresource: 'steps', id: routine.id, data: { n: 1 } });
    expect(step).toMatchObject({ parentId: routine.id, subresource: 'steps' });
    expect((await value('routines', { action: 'list' })).records).toHaveLength(1);
    expect((await value('routines', { action: 'get', subresource: 'steps', id: routine.id, data: { item_id: step.id } })).record.id).toBe(
      step.id,
    );
    expect(
      (await value('routines', { action: 'update', subresource: 'steps', id: routine.id, data: { item_id: step.id, n: 2 } })).record.data,
    ).toEqual({ n: 2 });
    await value('routines', { action: 'delete', id: routine.id });
    expect(store.records).toHaveLength(0);
  });

  it('assigns once, unassigns, and refuses targets that do not exist', async () => {
    const { run, value } = makeSut();
    const { record: agent } = await value('agents', { action: 'create', data: {} });
    const { record: server } = await value('mcp_servers', { action: 'create', data: { name: 's' } });
    const assign = { action: 'assign', subresource: 'mcp', id: agent.id, data: { target_id: server.id } };
    const first = await value('agents', assign);
    expect((await value('agents', assign)).record.id).toBe(first.record.id);
    expect(await value('agents', { ...assign, action: 'unassign' })).toEqual({ kind: 'unassigned', id: server.id });
    expect(await run('agents', { ...assign, action: 'unassign' })).toMatchObject({ kind: 'error' });
    const missing = await run('agents', { ...assign, data: { target_id: agent.id } });
    expect(missing).toEqual({ kind: 'error', message: `mcp_servers ${agent.id} was not found` });
  });

  it('keeps users apart', async () => {
    const { run, value } = makeSut();
    const { record } = await value('chat', { action: 'create', data: { topic: 'x' } }, 'alice');
    expect(await run('chat', { action: 'get', id: record.id }, 'bob')).toMatchObject({ kind: 'error' });
    expect(await run('chat', { action: 'create', subresource: 'messages', id: record.id, data: {} }, 'bob')).toMatchObject({
      kind: 'error',
    });
  });

  it('reports at most 20 of a million unknown argument names, in a small message', async () => {
    const { store, run } = makeSut();
    const args = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`unknown_${'n'.repeat(100)}_${i}`, 1]));
    const outcome = await run('agents', { action: 'create', ...args });
    if (outcome.kind !== 'error') throw new Error(JSON.stringify(outcome).slice(0, 200));
    expect(outcome.message.split('; ')).toHaveLength(20);
    expect(outcome.message.length).toBeLessThan(4096);
    expect(outcome.message).not.toContain('n'.repeat(65));
    expect(store.records).toHaveLength(0);
  });

  it('quotes at most 64 characters of a bad action', async () => {
    const { run } = makeSut();
    const outcome = await run('agents', { action: 'z'.repeat(10_000) });
    expect(outcome).toEqual({ kind: 'error', message: expect.stringContaining(`action: "${'z'.repeat(63)}…" is not one of`) });
  });
});
