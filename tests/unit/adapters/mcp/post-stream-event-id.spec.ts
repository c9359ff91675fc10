import {
  newPostStreamName,
  parseLastEventId,
  postStreamEventId,
  postStreamOpenedAt,
} from '../../../../src/adapters/mcp/sessions/post-stream-event-id';

describe('Last-Event-ID of a session stream', () => {
  it("reads a bare seq as the standalone stream's, and <stream>-<seq> as a POST stream's", () => {
    expect(parseLastEventId('12')).toEqual({ stream: null, seq: 12 });
    expect(parseLastEventId(' 7-12 ')).toEqual({ stream: 7, seq: 12 });
    expect(parseLastEventId(postStreamEventId(7, 7))).toEqual({ stream: 7, seq: 7 });
  });

  it('refuses what is malformed, too large, repeated, or an event before its stream began', () => {
    for (const bad of ['', 'abc', '-1', '1-', '1-2-3', '9'.repeat(16), `1-${'9'.repeat(17)}`, `1-${'9'.repeat(16)}`, '12-7', '1.5'])
      expect(parseLastEventId(bad)).toBeNull();
    expect(parseLastEventId(['1', '2'])).toBeNull();
    expect(parseLastEventId(undefined)).toBeNull();
  });
});

describe('POST stream names', () => {
  it('carry the time the stream opened, and differ for streams opened in the same ms', () => {
    const now = Date.parse('2026-11-27T10:00:00Z');
    const a = newPostStreamName(now);
    const b = newPostStreamName(now);
    expect(a).not.toBe(b);
    expect(postStreamOpenedAt(a)).toBe(now);
    expect(postStreamOpenedAt(b)).toBe(now);
    expect(parseLastEventId(postStreamEventId(a, a + 3))).toEqual({ stream: a, seq: a + 3 });
  });

  it('leave an older name (a session seq) to the log', () => {
    expect(postStreamOpenedAt(12)).toBeNull();
  });
});
