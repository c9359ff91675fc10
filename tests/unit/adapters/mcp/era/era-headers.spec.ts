import { eraHeadersOf, namesModernRevision } from '../../../../../src/adapters/mcp/era/era-headers';

describe('eraHeadersOf', () => {
  it('takes the three standard headers as sent, and leaves out absent or repeated ones', () => {
    expect(eraHeadersOf({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': '=?base64?ZWNobw==?=' })).toEqual({
      protocolVersion: '2026-07-28',
      method: 'tools/call',
      name: '=?base64?ZWNobw==?=',
    });
    expect(eraHeadersOf({ 'mcp-method': ['tools/list', 'tools/call'] })).toEqual({});
  });
});

describe('namesModernRevision', () => {
  it.each<[string | undefined, boolean]>([
    ['2026-07-28', true],
    [' 2026-07-28 ', true],
    ['2025-11-25', false],
    ['2099-01-01', false],
    [undefined, false],
  ])('%s → %s', (value, modern) => expect(namesModernRevision(value === undefined ? {} : { 'mcp-protocol-version': value })).toBe(modern));
});
