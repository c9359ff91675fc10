import { toCallToolResult } from '../../../../src/adapters/mcp/tool-presenter';

describe('toCallToolResult', () => {
  it('carries a value as structuredContent and as the same JSON text', () => {
    const value = { records: [], truncated: true };
    expect(toCallToolResult({ kind: 'value', value })).toEqual({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });
  });

  it('holds a failure to 8 KiB alone, and to three times its record budget when an answer is shared', () => {
    const message = 'm'.repeat(20_000);
    const textOf = (recordBytes?: number) => (toCallToolResult({ kind: 'error', message }, recordBytes).content[0] as { text: string }).text;
    expect(Buffer.byteLength(JSON.stringify(textOf()))).toBeLessThanOrEqual(8 * 1024);
    expect(Buffer.byteLength(JSON.stringify(textOf(18 * 1024)))).toBeLessThanOrEqual(8 * 1024);
    expect(Buffer.byteLength(JSON.stringify(textOf(1000)))).toBeLessThanOrEqual(3000);
    expect(toCallToolResult({ kind: 'error', message: 'short' }, 1000)).toEqual({ content: [{ type: 'text', text: 'short' }], isError: true });
  });
});
