import {
  ChosenContact,
  ProfiledUpstreamSession,
  UpstreamContact,
} from '../../../../../src/adapters/mcp/upstream/profiled-upstream-session';

const contact = (calls: string[]): UpstreamContact => ({
  listTools: async () => (calls.push('listTools'), []),
  callTool: async (tool) => (calls.push(`callTool ${tool}`), { content: [] }),
  list: async () => [],
  readResource: async () => ({ contents: [] }),
  getPrompt: async () => ({ messages: [] }),
  complete: async () => ({ completion: { values: [] } }),
  follow: async () => false,
  capabilities: async () => ({ tools: {} }),
  close: async () => void calls.push('close'),
});

function makeSut(choose?: () => Promise<ChosenContact>) {
  const calls: string[] = [];
  let chosen = 0;
  const sut = new ProfiledUpstreamSession(choose ?? (async () => ((chosen += 1), { session: contact(calls) })));
  return { sut, calls, chosen: () => chosen };
}

describe('ProfiledUpstreamSession', () => {
  it('chooses nothing for a contact never used, and closes nothing', async () => {
    const { sut, calls, chosen } = makeSut();
    await sut.close();
    expect(chosen()).toBe(0);
    expect(calls).toEqual([]);
  });

  it('chooses once and sends every operation, then the close, to that session', async () => {
    const { sut, calls, chosen } = makeSut();
    await sut.listTools();
    await sut.callTool('echo', {});
    await sut.close();
    expect(chosen()).toBe(1);
    expect(calls).toEqual(['listTools', 'callTool echo', 'close']);
  });

  it('fails every operation with what choosing failed with, and still closes', async () => {
    const failure = new Error('probe timed out');
    const { sut } = makeSut(async () => {
      throw failure;
    });
    await expect(sut.listTools()).rejects.toBe(failure);
    await expect(sut.capabilities()).rejects.toBe(failure);
    await expect(sut.close()).resolves.toBeUndefined();
  });

  it("answers a dual-era upstream's own declaration for its capabilities, and the session's otherwise", async () => {
    const calls: string[] = [];
    const declared = { tools: {}, logging: {}, resources: { subscribe: true } };
    const dual = new ProfiledUpstreamSession(async () => ({ session: contact(calls), declared }));
    await expect(dual.capabilities()).resolves.toEqual(declared);
    const { sut } = makeSut();
    await expect(sut.capabilities()).resolves.toEqual({ tools: {} });
  });
});
