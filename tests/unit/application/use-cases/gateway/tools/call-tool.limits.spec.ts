import { MAX_RECORD_DATA_BYTES } from '../../../../../../src/application/use-cases/gateway/built-in/data-limits';
import { mcpServerPolicy } from '../../../../../../src/application/use-cases/gateway/external/mcp-server-policy';
import { Resource } from '../../../../../../src/domain/scope';
import { FakeExternalTools } from '../../../../../fakes/fake-external-tools';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { makeCallTool } from '../../../../../support/call-tool-service';

function makeSut() {
  const store = new InMemoryResourceStore();
  const sut = makeCallTool(store, { mcp_servers: mcpServerPolicy(3) }, new FakeExternalTools()).sut;
  const run = (resource: Resource, args: Record<string, unknown>) =>
    sut.execute({ userId: 'alice', target: { kind: 'built-in', resource }, arguments: args });
  const value = async (name: Resource, args: Record<string, unknown>) => {
    const outcome = await run(name, args);
    if (outcome.kind !== 'value') throw new Error(JSON.stringify(outcome).slice(0, 300));
    return outcome.value as Record<string, any>;
  };
  return { store, run, value };
}

/** Data whose JSON is exactly `bytes` long. */
const dataOf = (bytes: number) => ({ text: 'x'.repeat(bytes - '{"text":""}'.length) });
const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const refusal = {
  kind: 'error',
  message: expect.stringMatching(/^data: must be at most 8192 bytes as JSON \(MAX_RECORD_DATA_BYTES\); this would store \d+$/),
};

describe('CallTool: the size of stored data', () => {
  it('stores data of exactly MAX_RECORD_DATA_BYTES and refuses one byte more, writing nothing', async () => {
    const { store, run, value } = makeSut();
    expect(bytesOf(dataOf(MAX_RECORD_DATA_BYTES))).toBe(8192);
    await value('projects', { action: 'create', data: dataOf(MAX_RECORD_DATA_BYTES) });
    expect(await run('projects', { action: 'create', data: dataOf(MAX_RECORD_DATA_BYTES + 1) })).toEqual(refusal);
    expect(await run('projects', { action: 'create', data: { items: Array.from({ length: 125_905 }, () => 1) } })).toEqual(refusal);
    expect(store.records).toHaveLength(1);
  });

  it('measures an update after merging it into the stored data, and keeps the record as it was', async () => {
    const { store, run, value } = makeSut();
    const { record } = await value('agents', { action: 'create', data: { a: 'x'.repeat(5000) } });
    expect(await run('agents', { action: 'update', id: record.id, data: { b: 'y'.repeat(5000) } })).toEqual(refusal);
    expect(store.records[0].data).toEqual({ a: 'x'.repeat(5000) });
    // Replacing the large field is fine: the merged data is what counts.
    await value('agents', { action: 'update', id: record.id, data: { a: 'short', b: 'y'.repeat(5000) } });
  });

  it('holds subresource items, item updates and executions to the same limit', async () => {
    const { store, run, value } = makeSut();
    const { record: routine } = await value('routines', { action: 'create', data: { name: 'r' } });
    const { record: step } = await value('routines', {
      action: 'create',
      subresource: 'steps',
      id: routine.id,
      data: { n: 'x'.repeat(5000) },
    });
    const before = structuredClone(store.records);
    const big = dataOf(MAX_RECORD_DATA_BYTES + 1);
    expect(await run('routines', { action: 'create', subresource: 'steps', id: routine.id, data: big })).toEqual(refusal);
    expect(
      await run('routines', { action: 'update', subresource: 'steps', id: routine.id, data: { item_id: step.id, m: 'y'.repeat(5000) } }),
    ).toEqual(refusal);
    expect(await run('routines', { action: 'execute', id: routine.id, data: big })).toEqual(refusal);
    expect(await run('routines', { action: 'execute', subresource: 'steps', id: routine.id, data: big })).toEqual(refusal);
    // An execution stores {status, input: data}: data just under the limit no longer fits with its wrapper.
    expect(await run('routines', { action: 'execute', id: routine.id, data: dataOf(MAX_RECORD_DATA_BYTES) })).toEqual(refusal);
    expect(store.records).toEqual(before);
  });

  it('measures an MCP server record after the policy merged it', async () => {
    const { run, value } = makeSut();
    const { record } = await value('mcp_servers', {
      action: 'create',
      data: { name: 's', url: 'https://a.example.com/mcp', headers: { A: 'x'.repeat(4000) } },
    });
    // The masked value sent back keeps the stored 4000 characters: 8,000 and more with the new header.
    const outcome = await run('mcp_servers', {
      action: 'update',
      id: record.id,
      data: { headers: { A: '********', B: 'y'.repeat(4200) } },
    });
    expect(outcome).toEqual(refusal);
  });
});

describe('CallTool: listings', () => {
  it('returns at most MAX_LISTED_RECORDS records, oldest first, and says truncated only when more matched', async () => {
    const { value } = makeSut();
    for (let i = 0; i < 100; i++) await value('models', { action: 'create', data: { i } });
    const all = await value('models', { action: 'list' });
    expect(all).toEqual({ kind: 'records', records: expect.any(Array), truncated: false });
    expect(all.records).toHaveLength(100);
    await value('models', { action: 'create', data: { i: 100 } });
    const listed = await value('models', { action: 'list' });
    expect(listed.records.map((r: { data: { i: number } }) => r.data.i)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(listed.truncated).toBe(true);
  });

  it('lists all items of a parent for get without item_id, as list does', async () => {
    const { value } = makeSut();
    const { record: chat } = await value('chat', { action: 'create', data: {} });
    for (let i = 0; i < 3; i++) await value('chat', { action: 'create', subresource: 'messages', id: chat.id, data: { i } });
    const all = await value('chat', { action: 'get', subresource: 'messages', id: chat.id });
    expect(all).toMatchObject({ kind: 'records', truncated: false });
    expect(all.records.map((r: { data: { i: number } }) => r.data.i)).toEqual([0, 1, 2]);
    expect(await value('chat', { action: 'list', subresource: 'messages', id: chat.id })).toEqual(all);
  });
});
