import { modernRelay, progressTokenOf } from '../../../../../src/adapters/mcp/modern/modern-relay';

function makeSut(progressToken?: string | number, logLevel?: string) {
  const sent: Array<{ method: string; params: Record<string, unknown> }> = [];
  const relay = modernRelay({ progressToken, logLevel, signal: new AbortController().signal, notify: async (n) => void sent.push(n) });
  return { relay, sent };
}

describe('modernRelay', () => {
  it("passes log messages from the client's logLevel up, and only with one", async () => {
    const { relay, sent } = makeSut(undefined, 'info');
    expect(relay!.wantsProgress).toBe(false);
    await relay!.notify('notifications/message', { level: 'debug', data: 'quiet' });
    await relay!.notify('notifications/message', { level: 'warning', data: 'loud' });
    await relay!.progress({ progress: 1 });
    expect(sent).toEqual([{ method: 'notifications/message', params: { level: 'warning', data: 'loud' } }]);
  });

  it('is not made for a call without a progress token or a logLevel', () => {
    expect(makeSut().relay).toBeUndefined();
  });

  it("sends the upstream's progress under the client's own token", async () => {
    const { relay, sent } = makeSut(7);
    await relay!.progress({ progress: 1, total: 2, message: 'half' });
    expect(sent).toEqual([{ method: 'notifications/progress', params: { progressToken: 7, progress: 1, total: 2, message: 'half' } }]);
  });

  it("passes no log message on and refuses the upstream's requests to the client", async () => {
    const { relay, sent } = makeSut('t');
    await relay!.notify('notifications/message', { level: 'error', data: 'x' });
    expect(sent).toEqual([]);
    expect(await relay!.request('sampling/createMessage', {})).toMatchObject({ error: { code: -32600 } });
  });
});

describe('progressTokenOf', () => {
  it.each<[unknown, string | number | undefined]>([
    [{ progressToken: 'a' }, 'a'],
    [{ progressToken: 3 }, 3],
    [{ progressToken: Infinity }, undefined],
    [{ progressToken: {} }, undefined],
    [undefined, undefined],
  ])('%j → %j', (meta, token) => expect(progressTokenOf(meta)).toBe(token));
});
