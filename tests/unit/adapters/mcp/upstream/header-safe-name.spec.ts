import { isHeaderSafeName } from '../../../../../src/adapters/mcp/upstream/modern-upstream-session';

describe('isHeaderSafeName (which tool names the direct POST sends in Mcp-Name as they are)', () => {
  it.each(['echo', 'files__read', 'v2.search-all', 'ns/tool', 'A'.repeat(128)])('takes %s', (name) => {
    expect(isHeaderSafeName(name)).toBe(true);
  });

  it.each(['', 'héllo', 'two words', 'tab\there', '=?base64?eA==?=', 'a'.repeat(129), 42, undefined])(
    'leaves %p to the SDK client, which encodes it',
    (name) => {
      expect(isHeaderSafeName(name)).toBe(false);
    },
  );
});
