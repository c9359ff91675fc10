import { ToolListing } from '../../../../src/application/ports/upstream-mcp.port';
import { ItemListing } from '../../../../src/application/ports/upstream-content.port';
import { LruLoadingCache } from '../../../../src/adapters/mcp/upstream/lru-loading-cache';

const listing = (name: string): ToolListing => ({ ok: true, tools: [{ name, inputSchema: { type: 'object' } }] });

/** A loader that counts its loads; each load waits for `gate` (when given) so that callers overlap. */
function counting<T>(result: T, gate?: Promise<void>) {
  const loader = {
    loads: 0,
    load: async () => {
      loader.loads += 1;
      await gate;
      return result;
    },
  };
  return loader;
}

describe('LruLoadingCache', () => {
  it('loads a key once for concurrent askers and serves it until the TTL passes', async () => {
    const clock = { now: 1_000 };
    const cache = new LruLoadingCache<ToolListing>({ maxEntries: 10, maxChars: 10_000, ttlMs: 40, now: () => clock.now });
    let open!: () => void;
    const loader = counting(listing('a'), new Promise<void>((resolve) => (open = resolve)));
    const asked = Promise.all([1, 2, 3, 4, 5].map(() => cache.get('server@v1', loader.load)));
    open();
    const answers = await asked;
    expect(answers.every((answer) => answer === answers[0])).toBe(true);
    clock.now += 39;
    await cache.get('server@v1', loader.load);
    expect(loader.loads).toBe(1);
    clock.now += 2;
    await cache.get('server@v1', loader.load);
    expect(loader.loads).toBe(2);
  });

  it('answers an asker whose load was under way when the key was forgotten with a load begun after the forget', async () => {
    const cache = new LruLoadingCache<ToolListing>({ maxEntries: 10, maxChars: 10_000, ttlMs: 60_000 });
    let open!: () => void;
    let version = 'before';
    const gate = new Promise<void>((resolve) => (open = resolve));
    let loads = 0;
    const load = async (): Promise<ToolListing> => {
      loads += 1;
      const seen = version;
      if (loads === 1) await gate;
      return listing(seen);
    };
    const asked = cache.get('server@v1', load);
    await Promise.resolve();
    // The upstream announces a change while the first load is under way (lru-cache then rejects that load's askers).
    version = 'after';
    cache.forget('server@v1');
    open();
    expect(await asked).toEqual(listing('after'));
    expect(loads).toBe(2);
    // The load that began after the forget is the one kept.
    expect(await cache.get('server@v1', load)).toEqual(listing('after'));
    expect(loads).toBe(2);
  });

  it('keeps failures as long as listings', async () => {
    const cache = new LruLoadingCache<ToolListing>({ maxEntries: 10, maxChars: 10_000, ttlMs: 60_000 });
    const loader = counting<ToolListing>({ ok: false, shown: 'upstream address not allowed' });
    await cache.get('bad@v1', loader.load);
    expect(await cache.get('bad@v1', loader.load)).toEqual({ ok: false, shown: 'upstream address not allowed' });
    expect(loader.loads).toBe(1);
  });

  it('loads a forgotten key again, leaving the others', async () => {
    const cache = new LruLoadingCache<ItemListing>({ maxEntries: 10, maxChars: 10_000, ttlMs: 60_000 });
    const resources = counting<ItemListing>({ ok: true, items: [{ uri: 'file:///a', name: 'a' }] });
    const prompts = counting<ItemListing>({ ok: true, items: [{ name: 'p' }] });
    await cache.get('resources:s@v1', resources.load);
    await cache.get('prompts:s@v1', prompts.load);
    cache.forget('resources:s@v1');
    await cache.get('resources:s@v1', resources.load);
    await cache.get('prompts:s@v1', prompts.load);
    expect([resources.loads, prompts.loads]).toEqual([2, 1]);
  });

  it('holds at most maxEntries values, least recently used out first', async () => {
    const cache = new LruLoadingCache<ToolListing>({ maxEntries: 2, maxChars: 10_000, ttlMs: 60_000 });
    const loaders = ['a', 'b', 'c'].map((name) => counting(listing(name)));
    for (const [i, loader] of loaders.entries()) await cache.get(`k${i}`, loader.load);
    await cache.get('k2', loaders[2].load);
    await cache.get('k0', loaders[0].load);
    expect([loaders[0].loads, loaders[2].loads]).toEqual([2, 1]);
  });

  it("holds at most maxChars of the values' JSON, serving but not keeping one larger on its own", async () => {
    const tool = (name: string) => ({ name, inputSchema: {} });
    const cache = new LruLoadingCache<ToolListing>({ maxEntries: 100, maxChars: 200, ttlMs: 60_000 });
    const first = counting<ToolListing>({ ok: true, tools: [tool('a'.repeat(80))] });
    const second = counting<ToolListing>({ ok: true, tools: [tool('b'.repeat(80))] });
    await cache.get('first', first.load);
    await cache.get('second', second.load); // together over 200 characters: the first goes
    await cache.get('second', second.load);
    await cache.get('first', first.load);
    expect([first.loads, second.loads]).toEqual([2, 1]);

    const huge = counting<ToolListing>({ ok: true, tools: [tool('x'.repeat(300))] });
    expect(await cache.get('huge', huge.load)).toEqual({ ok: true, tools: [tool('x'.repeat(300))] });
    await cache.get('huge', huge.load);
    expect(huge.loads).toBe(2);
  });

  it('bounds by count alone without maxChars', async () => {
    const cache = new LruLoadingCache<ToolListing>({ maxEntries: 10, ttlMs: 60_000 });
    const huge = counting<ToolListing>({ ok: true, tools: [{ name: 'x'.repeat(100_000), inputSchema: {} }] });
    await cache.get('huge', huge.load);
    await cache.get('huge', huge.load);
    expect(huge.loads).toBe(1);
  });
});
