import { randomUUID } from 'node:crypto';
import { UsageFlusher } from '../../../../../src/application/use-cases/usage/usage-flusher';
import { UsageEvent, UsageTally } from '../../../../../src/application/use-cases/usage/usage-tally';
import { InMemoryUsageStore } from '../../../../fakes/in-memory-usage.store';

const USER = randomUUID();
const KEY = randomUUID();
const event = (overrides: Partial<UsageEvent> = {}): UsageEvent => ({
  userId: USER,
  keyId: KEY,
  tool: 'projects',
  outcome: 'called',
  durationMs: 3,
  at: new Date('2026-11-27T09:59:30.000Z'),
  ...overrides,
});

function makeSut(bounds = { maxEntries: 10_000, hardMaxEntries: 11_000 }) {
  const tally = new UsageTally(bounds);
  const store = new InMemoryUsageStore();
  const errors: unknown[] = [];
  const dropped: number[] = [];
  const flusher = new UsageFlusher(tally, store, {
    intervalMs: 5000,
    onError: (error) => errors.push(error),
    onDropped: (calls) => dropped.push(calls),
  });
  return { tally, store, flusher, errors, dropped };
}

const sum = (store: InMemoryUsageStore, size: string) =>
  store.rows.filter((row) => row.size === size).reduce((total, row) => total + row.count, 0);

describe('UsageTally and UsageFlusher', () => {
  it('counts per (minute, user, key, tool, outcome) with latency sum and histogram, and writes minute, hour and day rows in one write', async () => {
    const { tally, store, flusher } = makeSut();
    tally.record(event());
    tally.record(event({ durationMs: 7 }));
    tally.record(event({ outcome: 'denied', durationMs: 0 }));
    tally.record(event({ at: new Date('2026-11-27T10:00:10.000Z') }));
    tally.record(event({ keyId: null }));
    expect(tally.size).toBe(4);
    await flusher.flush();
    expect(store.writes).toBe(1);
    const minute = store.rows.find((row) => row.size === 'minute' && row.outcome === 'called' && row.keyId === KEY && row.count === 2)!;
    expect(minute).toMatchObject({ bucketStart: new Date('2026-11-27T09:59:00.000Z'), latencySumMs: 10, tool: 'projects' });
    expect(minute.histogram.slice(0, 4)).toEqual([0, 0, 1, 1]);
    // Hours split at 10:00; the day holds all of them.
    expect(
      store.rows
        .filter((row) => row.size === 'hour' && row.keyId === KEY && row.outcome === 'called')
        .map((row) => [row.bucketStart.toISOString(), row.count]),
    ).toEqual([
      ['2026-11-27T09:00:00.000Z', 2],
      ['2026-11-27T10:00:00.000Z', 1],
    ]);
    expect([sum(store, 'minute'), sum(store, 'hour'), sum(store, 'day')]).toEqual([5, 5, 5]);
    expect(tally.size).toBe(0);
  });

  it('writes nothing when nothing was counted', async () => {
    const { store, flusher } = makeSut();
    await flusher.flush();
    expect(store.writes).toBe(0);
  });

  it('keeps the counts of a failed flush and writes them, with the new ones, at the next', async () => {
    const { tally, store, flusher, errors } = makeSut();
    tally.record(event());
    store.failing = true;
    await flusher.flush();
    expect(errors).toHaveLength(1);
    expect(store.rows).toHaveLength(0);
    tally.record(event());
    store.failing = false;
    await flusher.flush();
    expect([sum(store, 'minute'), sum(store, 'hour'), sum(store, 'day')]).toEqual([2, 2, 2]);
  });

  it('bounds the map: past maxEntries new tools count as other, past hardMaxEntries new entries are dropped and reported', async () => {
    const { tally, store, flusher, dropped } = makeSut({ maxEntries: 3, hardMaxEntries: 4 });
    for (let n = 0; n < 10; n += 1) tally.record(event({ tool: `made-up-${n}` }));
    expect(tally.size).toBe(4);
    tally.record(event({ tool: 'again', outcome: 'denied' }));
    await flusher.flush();
    expect(store.rows.filter((row) => row.size === 'minute').map((row) => [row.tool, row.count])).toEqual([
      ['made-up-0', 1],
      ['made-up-1', 1],
      ['made-up-2', 1],
      ['other', 7],
    ]);
    expect(dropped).toEqual([1]);
  });

  it('flushes every interval on a timer, and what is left at stop', async () => {
    jest.useFakeTimers();
    try {
      const { tally, store, flusher } = makeSut();
      flusher.start();
      tally.record(event());
      await jest.advanceTimersByTimeAsync(4999);
      expect(store.writes).toBe(0);
      await jest.advanceTimersByTimeAsync(1);
      expect(sum(store, 'minute')).toBe(1);
      tally.record(event());
      await flusher.stop();
      expect(sum(store, 'minute')).toBe(2);
      tally.record(event());
      await jest.advanceTimersByTimeAsync(20_000);
      expect(sum(store, 'minute')).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });
});
