import { DataSource } from 'typeorm';
import { RateWindows } from '../../../../src/adapters/persistence/usage/rate-windows';

/** key_rate_windows in memory: the upsert adds the share and returns the total, a tick later, as a database would. */
function fakeDatabase() {
  const rows = new Map<string, number>();
  const calls = { count: 0 };
  const dataSource = {
    async query(sql: string, [, windowSeconds, start, share]: [string, number, number, number]) {
      calls.count += 1;
      await new Promise((resolve) => setImmediate(resolve));
      const key = `${windowSeconds}:${start}`;
      if (sql.startsWith('SELECT')) return rows.has(key) ? [{ granted: String(rows.get(key)) }] : [];
      rows.set(key, (rows.get(key) ?? 0) + share);
      return [{ granted: String(rows.get(key)) }];
    },
  } as unknown as DataSource;
  return { dataSource, rows, calls };
}

const BOUNDARY = Date.UTC(2026, 0, 1, 0, 0, 10);

describe('RateWindows', () => {
  it('admits requests from both sides of a window boundary arriving together, with one share per window', async () => {
    const db = fakeDatabase();
    const windows = new RateWindows(db.dataSource);
    const rateLimit = { limit: 1_000_000, windowSeconds: 1 };
    // Alternating 1 ms before and at the boundary, all in flight at once: these once replaced each other's window for ever.
    const decisions = await Promise.all(
      Array.from({ length: 64 }, (_, i) => windows.admit('budget', rateLimit, new Date(BOUNDARY - 1 + (i % 2)))),
    );
    expect(decisions.every((d) => d.admitted)).toBe(true);
    expect(db.calls.count).toBeLessThanOrEqual(2);
  });

  it('counts a request that began in an earlier window against the window already open', async () => {
    const db = fakeDatabase();
    const windows = new RateWindows(db.dataSource);
    const rateLimit = { limit: 40, windowSeconds: 1 };
    await windows.admit('budget', rateLimit, new Date(BOUNDARY + 10));
    const late = await windows.admit('budget', rateLimit, new Date(BOUNDARY - 5));
    expect(late.admitted).toBe(true);
    expect([...db.rows.keys()]).toEqual([`1:${BOUNDARY / 1000}`]);
  });

  it('keeps a window per length, so requests under an old and a new length of one key do not displace each other', async () => {
    const db = fakeDatabase();
    const windows = new RateWindows(db.dataSource);
    const decisions = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        windows.admit('budget', i % 2 === 0 ? { limit: 1000, windowSeconds: 1 } : { limit: 1000, windowSeconds: 60 }, new Date(BOUNDARY)),
      ),
    );
    expect(decisions.every((d) => d.admitted)).toBe(true);
    expect(db.calls.count).toBe(2);
  });

  it('peeks at the window without counting: what admit would report, the row and the share held untouched', async () => {
    const db = fakeDatabase();
    const windows = new RateWindows(db.dataSource);
    const rateLimit = { limit: 40, windowSeconds: 60 };
    const at = new Date(BOUNDARY);
    expect(await windows.peek('budget', rateLimit, at)).toEqual({ limit: 40, windowSeconds: 60, remaining: 40, resetSeconds: 50 });
    const admitted = await windows.admit('budget', rateLimit, at);
    const rows = [...db.rows.entries()];
    for (let i = 0; i < 3; i += 1) expect((await windows.peek('budget', rateLimit, at)).remaining).toBe(admitted.remaining);
    expect([...db.rows.entries()]).toEqual(rows);
    // The share this replica took still admits exactly as many as before the peeks.
    expect((await windows.admit('budget', rateLimit, at)).remaining).toBe(admitted.remaining - 1);
    expect([...db.rows.entries()]).toEqual(rows);
  });

  it("peeks at a used-up window as remaining 0, another replica's shares counted as spent", async () => {
    const db = fakeDatabase();
    const windows = new RateWindows(db.dataSource);
    const rateLimit = { limit: 2, windowSeconds: 60 };
    db.rows.set(`60:${Math.floor(BOUNDARY / 60_000) * 60}`, 3);
    expect((await windows.peek('budget', rateLimit, new Date(BOUNDARY))).remaining).toBe(0);
  });
});
