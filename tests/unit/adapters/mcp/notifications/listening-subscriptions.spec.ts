import {
  ListeningSubscriptions,
  LocalUpstreamStreams,
  SubscriptionRecords,
} from '../../../../../src/adapters/mcp/notifications/listening-subscriptions';
import { InMemoryResourceSubscriptions } from '../../../../fakes/in-memory-resource-subscriptions';

const WAIT_MS = 1000;

/** Records in memory that say whether a stream is held; a local side that holds nothing unless told. */
function makeSut(options: { held?: boolean; local?: boolean | null } = {}) {
  const records = Object.assign(new InMemoryResourceSubscriptions(), {
    streamHeld: async () => options.held ?? false,
  }) as InMemoryResourceSubscriptions & SubscriptionRecords;
  const asked: [string, string, number][] = [];
  const local: LocalUpstreamStreams = {
    listening: async (sessionId, serverId, ms) => (asked.push([sessionId, serverId, ms]), options.local ?? null),
  };
  return { sut: new ListeningSubscriptions(records, local, WAIT_MS), records, asked };
}

/** Resolves with whether `promise` settled by now. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return done;
}

describe('ListeningSubscriptions', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('waits in process when this replica holds the stream, and tells nobody else', async () => {
    const { sut, records, asked } = makeSut({ local: true, held: true });
    await sut.following('s1', 'srv');
    expect(asked).toEqual([['s1', 'srv', WAIT_MS]]);
    expect(records.told).toEqual([]);
  });

  it('does not wait when no replica holds the stream', async () => {
    const { sut, records } = makeSut({ held: false });
    await sut.following('s1', 'srv');
    expect(records.told).toEqual([]);
  });

  it('asks the replica holding the stream and waits for its answer', async () => {
    const { sut, records } = makeSut({ held: true });
    const following = sut.following('s1', 'srv');
    expect(await settled(following)).toBe(false);
    expect(records.told).toEqual(['s1 srv']);
    sut.heard('s1 other');
    expect(await settled(following)).toBe(false);
    sut.heard('s1 srv');
    expect(await settled(following)).toBe(true);
  });

  it('waits no longer than its bound for an answer that never comes, and keeps nothing after', async () => {
    const { sut } = makeSut({ held: true });
    const first = sut.following('s1', 'srv');
    const second = sut.following('s1', 'srv');
    await jest.advanceTimersByTimeAsync(WAIT_MS - 1);
    expect(await settled(Promise.all([first, second]))).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await settled(Promise.all([first, second]))).toBe(true);
    expect((sut as unknown as { waiting: Map<string, unknown> }).waiting.size).toBe(0);
  });
});
