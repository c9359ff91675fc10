import { LastUsedCoalescer, LastUsedEntry } from '../../../../src/adapters/persistence/hot-path/last-used-coalescer';

const t = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));

function recorder(failTimes = 0) {
  const batches: LastUsedEntry[][] = [];
  let failures = failTimes;
  const write = async (entries: LastUsedEntry[]) => {
    if (failures > 0) {
      failures -= 1;
      throw new Error('database down');
    }
    batches.push(entries);
  };
  return { batches, write };
}

describe('LastUsedCoalescer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('writes through until started', async () => {
    const { batches, write } = recorder();
    const c = new LastUsedCoalescer(write, 1000);
    await c.record('a', t(1));
    expect(batches).toEqual([[{ id: 'a', at: t(1) }]]);
  });

  it('keeps the latest time per key and writes one batch per interval', async () => {
    const { batches, write } = recorder();
    const sizes: number[] = [];
    const c = new LastUsedCoalescer(write, 1000, (n) => sizes.push(n));
    c.start();
    await c.record('a', t(1));
    await c.record('a', t(3));
    await c.record('a', t(2)); // out of order: must not move the value back
    await c.record('b', t(2));
    expect(batches).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1000);
    expect(batches).toEqual([
      [
        { id: 'a', at: t(3) },
        { id: 'b', at: t(2) },
      ],
    ]);
    expect(sizes).toEqual([2]);
    await jest.advanceTimersByTimeAsync(5000);
    expect(batches).toHaveLength(1); // nothing new, nothing written
    await c.stop();
  });

  it('keeps a failed batch and writes it with newer values on the next tick', async () => {
    const { batches, write } = recorder(1);
    const c = new LastUsedCoalescer(write, 1000);
    c.start();
    await c.record('a', t(1));
    await c.record('b', t(1));
    await jest.advanceTimersByTimeAsync(1000);
    expect(batches).toHaveLength(0);
    expect(c.pendingCount).toBe(2);
    await c.record('a', t(5));
    await jest.advanceTimersByTimeAsync(1000);
    expect(batches).toEqual([
      [
        { id: 'a', at: t(5) },
        { id: 'b', at: t(1) },
      ],
    ]);
    await c.stop();
  });

  it('writes what is pending when stopped, and reports a failing last write', async () => {
    const ok = recorder();
    const c = new LastUsedCoalescer(ok.write, 60_000);
    c.start();
    await c.record('a', t(9));
    await c.stop();
    expect(ok.batches).toEqual([[{ id: 'a', at: t(9) }]]);

    const down = recorder(5);
    const d = new LastUsedCoalescer(down.write, 60_000);
    d.start();
    await d.record('a', t(9));
    await expect(d.stop()).rejects.toThrow('database down');
    expect(d.pendingCount).toBe(1);
  });
});
