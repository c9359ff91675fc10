import { NotifiedLruCache, NotifiedLruCacheOptions } from '../../../../src/adapters/persistence/hot-path/notified-lru-cache';

interface Row {
  owner: string;
  live?: boolean;
}

type Options = Partial<NotifiedLruCacheOptions<string, Row>>;

function makeSut(options: Options = {}, enabled = true) {
  const sut = new NotifiedLruCache<string, Row>({ channel: 'changes', maxEntries: 3, ...options });
  if (enabled) sut.enable();
  const fill = (key: string, row: Row | null) => sut.load(key, async () => row);
  return { sut, fill };
}

const byOwner: Options = { nameOf: (_key, row) => row.owner };

describe('NotifiedLruCache', () => {
  it('is off until enabled: it serves nothing and keeps nothing, but still loads', async () => {
    const { sut, fill } = makeSut({}, false);
    const row = { owner: 'o' };
    expect(sut.isEnabled).toBe(false);
    expect(await fill('a', row)).toBe(row);
    expect(sut.size).toBe(0);
    expect(sut.get('a')).toBeUndefined();
  });

  it('starts empty each time it is enabled, and forgets everything when disabled', async () => {
    const { sut, fill } = makeSut();
    await fill('a', { owner: 'o' });
    sut.enable();
    expect(sut.size).toBe(0);
    await fill('a', { owner: 'o' });
    sut.disable();
    expect(sut.size).toBe(0);
    expect(sut.get('a')).toBeUndefined();
  });

  it('stays off with room for no entries', async () => {
    const { sut, fill } = makeSut({ maxEntries: 0 });
    expect(sut.isEnabled).toBe(false);
    await fill('a', { owner: 'o' });
    expect(sut.get('a')).toBeUndefined();
  });

  it('keeps at most maxEntries, the least recently used out first', async () => {
    const { sut, fill } = makeSut({ maxEntries: 2 });
    const [a, b, c] = [{ owner: 'a' }, { owner: 'b' }, { owner: 'c' }];
    await fill('a', a);
    await fill('b', b);
    sut.get('a');
    await fill('c', c);
    expect([sut.get('a'), sut.get('b'), sut.get('c')]).toEqual([a, undefined, c]);
  });

  it('keeps neither nulls nor values `keep` turns down', async () => {
    const { sut, fill } = makeSut({ keep: (row) => row.live !== false });
    expect(await fill('gone', null)).toBeNull();
    await fill('dead', { owner: 'o', live: false });
    await fill('live', { owner: 'o', live: true });
    expect(sut.size).toBe(1);
    expect(sut.get('live')).toEqual({ owner: 'o', live: true });
  });

  it('evicts by cache key when notifications name entries by their key', async () => {
    const { sut, fill } = makeSut();
    await fill('a', { owner: 'x' });
    await fill('b', { owner: 'x' });
    sut.evict('a');
    expect(sut.get('a')).toBeUndefined();
    expect(sut.get('b')).toBeDefined();
  });

  it('evicts every entry a name covers, and only those', async () => {
    const { sut, fill } = makeSut(byOwner);
    await fill('a1', { owner: 'a' });
    await fill('a2', { owner: 'a' });
    await fill('b1', { owner: 'b' });
    sut.evict('a');
    expect(sut.size).toBe(1);
    expect(sut.get('b1')).toEqual({ owner: 'b' });
    sut.evict('a'); // nothing left under that name
    expect(sut.size).toBe(1);
  });

  it('still evicts the rest of a name whose entries the bound pushed out one by one', async () => {
    const { sut, fill } = makeSut(byOwner);
    await fill('a1', { owner: 'a' });
    await fill('a2', { owner: 'a' });
    await fill('a3', { owner: 'a' });
    await fill('b1', { owner: 'b' }); // pushes a1 out
    sut.evict('a');
    expect(sut.size).toBe(1);
    await fill('a4', { owner: 'a' });
    await fill('b2', { owner: 'b' });
    await fill('b3', { owner: 'b' }); // pushes b1 out, then a4 stands alone under its name
    sut.evict('b');
    expect([sut.size, sut.get('a4')]).toEqual([1, { owner: 'a' }]);
    sut.evict('a');
    expect(sut.size).toBe(0);
  });

  it('forgets what a name covered once an entry is pushed out or replaced', async () => {
    const { sut, fill } = makeSut({ ...byOwner, maxEntries: 1 });
    await fill('k', { owner: 'old' });
    await fill('other', { owner: 'x' }); // pushes k out
    await fill('k', { owner: 'new' });
    sut.evict('old');
    expect(sut.get('k')).toEqual({ owner: 'new' });
    await fill('k', { owner: 'newer' }); // replaced in place
    sut.evict('new');
    expect(sut.get('k')).toEqual({ owner: 'newer' });
    sut.evict('newer');
    expect(sut.size).toBe(0);
  });

  it('empties on `*`, with names or without', async () => {
    for (const options of [{}, byOwner]) {
      const { sut, fill } = makeSut(options);
      await fill('a', { owner: 'a' });
      await fill('b', { owner: 'b' });
      sut.evict('*');
      expect(sut.size).toBe(0);
    }
  });

  it('does not keep what a load read before an eviction, a clear or a reconnection', async () => {
    const { sut } = makeSut(byOwner);
    const during = (change: () => void) => sut.load('k', async () => (change(), { owner: 'o' }));
    await during(() => sut.evict('someone else')); // any eviction: the row read may predate any change
    await during(() => sut.evict('*'));
    await during(() => sut.clear());
    await during(() => (sut.disable(), sut.enable()));
    expect(sut.size).toBe(0);
    await during(() => undefined);
    expect(sut.get('k')).toEqual({ owner: 'o' });
  });

  it('does not keep what a load began while it was off', async () => {
    const { sut } = makeSut({}, false);
    await sut.load('k', async () => (sut.enable(), { owner: 'o' }));
    expect(sut.size).toBe(0);
  });

  describe('with staleAfterMs, while the change listener is away', () => {
    beforeEach(() => jest.useFakeTimers({ now: 0 }));
    afterEach(() => jest.useRealTimers());

    it('serves what it held when the listener dropped, for staleAfterMs from the first drop, then nothing', async () => {
      const { sut, fill } = makeSut({ staleAfterMs: 5000 });
      const row = { owner: 'o' };
      await fill('a', row);
      sut.disable();
      jest.advanceTimersByTime(3000);
      sut.disable(); // a failed reconnection attempt does not move the deadline
      expect(sut.get('a')).toBe(row);
      jest.advanceTimersByTime(1999);
      expect(sut.get('a')).toBe(row);
      jest.advanceTimersByTime(1);
      expect(sut.get('a')).toBeUndefined();
      expect(sut.isEnabled).toBe(false);
      expect(sut.size).toBe(0);
    });

    it('keeps nothing it loads in the gap, and still evicts', async () => {
      const { sut, fill } = makeSut({ staleAfterMs: 5000 });
      await fill('a', { owner: 'o' });
      sut.disable();
      await fill('b', { owner: 'o' });
      expect(sut.get('b')).toBeUndefined();
      sut.evict('a');
      expect(sut.get('a')).toBeUndefined();
    });

    it('starts empty when the listener is back, since changes made in the gap were never heard', async () => {
      const { sut, fill } = makeSut({ staleAfterMs: 5000 });
      await fill('a', { owner: 'o' });
      sut.disable();
      sut.enable();
      expect(sut.get('a')).toBeUndefined();
      const row = { owner: 'o' };
      await fill('a', row);
      jest.advanceTimersByTime(60_000); // the deadline of the last gap is gone
      expect(sut.get('a')).toBe(row);
    });

    it('serves nothing in a gap before it was ever enabled', async () => {
      const { sut, fill } = makeSut({ staleAfterMs: 5000 }, false);
      sut.disable();
      await fill('a', { owner: 'o' });
      expect(sut.get('a')).toBeUndefined();
    });
  });
});
