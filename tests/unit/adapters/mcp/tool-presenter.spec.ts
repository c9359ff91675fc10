import { MAX_RESULT_RECORD_BYTES } from '../../../../src/adapters/mcp/record-view';
import { toCallToolResult } from '../../../../src/adapters/mcp/tool-presenter';
import { Resource } from '../../../../src/domain/scope';
import { FakeExternalTools } from '../../../fakes/fake-external-tools';
import { InMemoryResourceStore } from '../../../fakes/in-memory-resource.store';
import { makeCallTool } from '../../../support/call-tool-service';

/** Built-in tool calls as the MCP server answers them: CallTool's value, rendered within `recordBytes`. */
function makeSut() {
  const sut = makeCallTool(new InMemoryResourceStore(), {}, new FakeExternalTools()).sut;
  const value = async (resource: Resource, args: Record<string, unknown>, recordBytes?: number) => {
    const outcome = await sut.execute({ userId: 'alice', target: { kind: 'built-in', resource }, arguments: args });
    if (outcome.kind !== 'value') throw new Error(JSON.stringify(outcome).slice(0, 300));
    return toCallToolResult(outcome, recordBytes).structuredContent as Record<string, any>;
  };
  return { value };
}

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('toCallToolResult', () => {
  it('carries a value as structuredContent and as the same JSON text', () => {
    const value = { records: [], truncated: true };
    expect(toCallToolResult({ kind: 'value', value: { kind: 'records', records: [], truncated: true } })).toEqual({
      content: [{ type: 'text', text: JSON.stringify(value) }],
      structuredContent: value,
    });
  });

  it('holds a failure to 8 KiB alone, and to three times its record budget when an answer is shared', () => {
    const message = 'm'.repeat(20_000);
    const textOf = (recordBytes?: number) =>
      (toCallToolResult({ kind: 'error', message }, recordBytes).content[0] as { text: string }).text;
    expect(Buffer.byteLength(JSON.stringify(textOf()))).toBeLessThanOrEqual(8 * 1024);
    expect(Buffer.byteLength(JSON.stringify(textOf(18 * 1024)))).toBeLessThanOrEqual(8 * 1024);
    expect(Buffer.byteLength(JSON.stringify(textOf(1000)))).toBeLessThanOrEqual(3000);
    expect(toCallToolResult({ kind: 'error', message: 'short' }, 1000)).toEqual({
      content: [{ type: 'text', text: 'short' }],
      isError: true,
    });
  });
});

describe('toCallToolResult: listings within the byte budget', () => {
  it('shows records oldest first until the byte budget, saying truncated', async () => {
    const { value } = makeSut();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await value('projects', { action: 'create', data: { i, text: 'x'.repeat(4000) } })).record.id);
    const listed = await value('projects', { action: 'list' });
    expect(listed.truncated).toBe(true);
    expect(listed.records.length).toBeGreaterThan(0);
    expect(listed.records.map((r: { id: string }) => r.id)).toEqual(ids.slice(0, listed.records.length));
    expect(bytesOf(listed.records)).toBeLessThanOrEqual(MAX_RESULT_RECORD_BYTES);
    expect(bytesOf(listed.records) + bytesOf(listed.records[0])).toBeGreaterThan(MAX_RESULT_RECORD_BYTES);
    // search and query take the same budget.
    expect((await value('projects', { action: 'search', data: { text: 'xxx' } })).truncated).toBe(true);
    expect((await value('projects', { action: 'query', data: { where: {} } })).truncated).toBe(true);
  });

  it('leaves truncated out when everything that matched is shown', async () => {
    const { value } = makeSut();
    await value('projects', { action: 'create', data: { text: 'x'.repeat(4000) } });
    expect(await value('projects', { action: 'list' })).toEqual({
      records: [expect.objectContaining({ data: { text: 'x'.repeat(4000) } })],
    });
    expect(await value('chat', { action: 'list' })).toEqual({ records: [] });
  });

  it('shows at most 100 records, and says truncated only when more matched', async () => {
    const { value } = makeSut();
    for (let i = 0; i < 100; i++) await value('models', { action: 'create', data: { i } });
    expect(await value('models', { action: 'list' })).toEqual({ records: expect.any(Array) });
    expect((await value('models', { action: 'list' })).records).toHaveLength(100);
    await value('models', { action: 'create', data: { i: 100 } });
    const listed = await value('models', { action: 'list' });
    expect(listed.records).toHaveLength(100);
    expect(listed.records.map((r: { data: { i: number } }) => r.data.i)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(listed.truncated).toBe(true);
  });

  it('truncates all items of a parent (get without item_id) the same way', async () => {
    const { value } = makeSut();
    const { record: chat } = await value('chat', { action: 'create', data: {} });
    for (let i = 0; i < 6; i++)
      await value('chat', { action: 'create', subresource: 'messages', id: chat.id, data: { i, text: 'x'.repeat(6000) } });
    const all = await value('chat', { action: 'get', subresource: 'messages', id: chat.id });
    expect(all.truncated).toBe(true);
    expect(all.records.map((r: { data: { i: number } }) => r.data.i)).toEqual([0, 1]);
    expect((await value('chat', { action: 'list', subresource: 'messages', id: chat.id })).records).toHaveLength(2);
  });

  it('fits a smaller budget when the caller passes one, showing a record too large for it without its data', async () => {
    const { value } = makeSut();
    const { record } = await value('projects', { action: 'create', data: { text: 'x'.repeat(4000) } });
    await value('projects', { action: 'create', data: { text: 'small' } });
    expect(await value('projects', { action: 'list' }, 1000)).toEqual({ records: [], truncated: true });
    const got = await value('projects', { action: 'get', id: record.id }, 1000);
    expect(got).toEqual({
      record: { id: record.id, resource: 'projects', created_at: expect.any(String), updated_at: expect.any(String) },
      truncated: true,
    });
    expect((await value('projects', { action: 'get', id: record.id })).record.data).toEqual({ text: 'x'.repeat(4000) });
  });
});
