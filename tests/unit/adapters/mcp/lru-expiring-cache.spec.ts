import { LruExpiringCache } from '../../../../src/adapters/mcp/upstream/lru-expiring-cache';

describe('LruExpiringCache', () => {
  it('keeps each value until its own keepUntil, loading once for concurrent askers', async () => {
    const clock = { now: 1_000 };
    const cache = new LruExpiringCache<string>({ maxEntries: 10, now: () => clock.now });
    let loads = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const load = (keepFor: number) => async () => {
      loads += 1;
      await gate;
      return { value: `token-${loads}`, keepUntil: new Date(clock.now + keepFor) };
    };
    const asked = Promise.all([1, 2, 3].map(() => cache.get('a', load(50))));
    open();
    expect(await asked).toEqual(['token-1', 'token-1', 'token-1']);
    clock.now += 49;
    expect(await cache.get('a', load(50))).toBe('token-1');
    clock.now += 2;
    expect(await cache.get('a', load(5_000))).toBe('token-2');
    clock.now += 4_999;
    expect(await cache.get('a', load(5_000))).toBe('token-2');
    expect(loads).toBe(2);
  });

  it('keeps nothing from a load that throws, nor a value already due', async () => {
    const clock = { now: 1_000 };
    const cache = new LruExpiringCache<string>({ maxEntries: 10, now: () => clock.now });
    await expect(cache.get('a', () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(await cache.get('a', async () => ({ value: 'late', keepUntil: new Date(clock.now - 10) }))).toBe('late');
    clock.now += 1;
    expect(await cache.get('a', async () => ({ value: 'fresh', keepUntil: new Date(clock.now + 60_000) }))).toBe('fresh');
  });

  it('holds at most maxEntries values', async () => {
    const cache = new LruExpiringCache<string>({ maxEntries: 2, now: () => 0 });
    const keep = (value: string) => async () => ({ value, keepUntil: new Date(60_000) });
    for (const key of ['a', 'b', 'c']) await cache.get(key, keep(key));
    expect(await cache.get('a', keep('a again'))).toBe('a again');
    expect(await cache.get('c', keep('c again'))).toBe('c');
  });

  it("gives an asker its load's value when the key is evicted while the load is under way, and keeps no stale entry", async () => {
    const cache = new LruExpiringCache<string>({ maxEntries: 1, now: () => 0 });
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const slow = cache.get('a', async () => {
      await held;
      return { value: 'a', keepUntil: new Date(60_000) };
    });
    // A second key fills the only slot: lru-cache evicts 'a' mid-load.
    expect(await cache.get('b', async () => ({ value: 'b', keepUntil: new Date(60_000) }))).toBe('b');
    finish();
    expect(await slow).toBe('a');
    expect(await cache.get('b', async () => ({ value: 'b again', keepUntil: new Date(60_000) }))).toBe('b');
  });
});
