import { asLegacyResult } from '../../../../../src/adapters/mcp/upstream/legacy-result';

describe('asLegacyResult', () => {
  it("drops the 2026 fields (resultType, caching hints, the upstream's serverInfo) and keeps the rest as it came", () => {
    expect(
      asLegacyResult({
        resultType: 'complete',
        ttlMs: 0,
        cacheScope: 'private',
        content: [{ type: 'text', text: 'hi' }],
        isError: false,
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'up', version: '1' } },
      }),
    ).toEqual({ content: [{ type: 'text', text: 'hi' }], isError: false });
  });

  it('keeps other _meta keys', () => {
    expect(asLegacyResult({ tools: [], _meta: { 'io.modelcontextprotocol/serverInfo': {}, trace: 'x' } })).toEqual({
      tools: [],
      _meta: { trace: 'x' },
    });
  });
});
