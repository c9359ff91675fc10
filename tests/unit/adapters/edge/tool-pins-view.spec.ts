import { MAX_RESULT_RECORD_BYTES } from '../../../../src/adapters/mcp/record-view';
import { toCallToolResult } from '../../../../src/adapters/mcp/tool-presenter';
import { ResourceRecord } from '../../../../src/domain/resource/resource-record';
import { ToolPin } from '../../../../src/domain/tool';

const SERVER: ResourceRecord = {
  id: 'srv-1',
  ownerId: 'alice',
  resource: 'mcp_servers',
  parentId: null,
  subresource: null,
  data: { name: 'files', url: 'https://files.example/mcp', description: 'd'.repeat(2000) },
  createdAt: new Date(0),
  updatedAt: new Date(0),
};
const hex = (i: number) => i.toString(16).padStart(64, '0');
const pin = (i: number, changed = false): ToolPin => ({
  tool: `tool_${String(i).padStart(3, '0')}`,
  sha256: hex(i),
  status: changed ? 'changed' : 'approved',
  seenSha256: changed ? hex(i + 1000) : hex(i),
  described: !changed,
});
/** What get shows of the server with these pins, within `budget` bytes of record JSON. */
function shown(pins: ToolPin[], budget?: number, record = SERVER) {
  const result = toCallToolResult({ kind: 'value', value: { kind: 'record', as: 'record', record, pins } }, budget);
  return result.structuredContent as { record: { data: Record<string, any> }; truncated?: true };
}
const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('tool_pins on a server record', () => {
  it('shows every pin, and no truncation marks, when they fit', () => {
    const { record, truncated } = shown([pin(1), pin(2, true)]);
    expect(truncated).toBeUndefined();
    expect(record.data).toEqual({
      ...SERVER.data,
      tool_pins: {
        tool_001: { sha256: hex(1), status: 'approved' },
        tool_002: { sha256: hex(2), status: 'changed', seen_sha256: hex(1002) },
      },
    });
  });

  it('keeps the record data of a server with 400 pins, showing the changed ones first and as many approved as fit', () => {
    const changed = new Set([7, 150, 399]);
    const pins = Array.from({ length: 400 }, (_, i) => pin(i, changed.has(i)));
    const { record, truncated } = shown(pins);
    expect(truncated).toBeUndefined();
    expect(bytesOf(record)).toBeLessThanOrEqual(MAX_RESULT_RECORD_BYTES);
    expect(record.data).toMatchObject({ ...SERVER.data, tool_pins_truncated: true, tool_pins_total: 400 });
    const names = Object.keys(record.data.tool_pins);
    expect(names.slice(0, 3)).toEqual(['tool_007', 'tool_150', 'tool_399']);
    expect(record.data.tool_pins.tool_150).toEqual({ sha256: hex(150), status: 'changed', seen_sha256: hex(1150) });
    // Approved ones follow by name, with no gap, as many as fit: the next one would not have.
    const approved = names.slice(3);
    expect(approved.length).toBeGreaterThan(50);
    expect(approved).toEqual(
      pins
        .filter((p) => !changed.has(Number(p.tool.slice(5))))
        .slice(0, approved.length)
        .map((p) => p.tool),
    );
    expect(
      bytesOf(record) + bytesOf(`${approved.length === 0 ? '' : ','}"tool_999":`) + bytesOf({ sha256: hex(0), status: 'approved' }),
    ).toBeGreaterThan(MAX_RESULT_RECORD_BYTES);
  });

  it('fits a batch share of the budget the same way, and shows the record without data only when its own data does not fit', () => {
    const pins = Array.from({ length: 400 }, (_, i) => pin(i));
    const { record } = shown(pins, 3000);
    expect(bytesOf(record)).toBeLessThanOrEqual(3000);
    expect(record.data).toMatchObject({ name: 'files', tool_pins_truncated: true, tool_pins_total: 400 });
    expect(Object.keys(record.data.tool_pins).length).toBeGreaterThan(0);
    const cut = shown(pins, 2000);
    expect(cut.truncated).toBe(true);
    expect(cut.record).not.toHaveProperty('data');
  });

  it('shows a tool named __proto__ as a key like any other', () => {
    const { record } = shown([{ ...pin(1), tool: '__proto__' }]);
    expect(Object.keys(record.data.tool_pins)).toEqual(['__proto__']);
    expect(JSON.stringify(record.data.tool_pins)).toBe(`{"__proto__":{"sha256":"${hex(1)}","status":"approved"}}`);
  });
});
