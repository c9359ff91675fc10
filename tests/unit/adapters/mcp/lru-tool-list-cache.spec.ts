import { ToolListing } from '../../../../src/application/ports/upstream-mcp.port';
import { LruToolListCache } from '../../../../src/adapters/mcp/upstream/lru-tool-list-cache';

const listing = (name: string): ToolListing => ({ ok: true, tools: [{ name, inputSchema: { type: 'object' } }] });

/** Counts its loads; each load stays in flight until `gate` settles (no gate: at once). */
function counting(result: ToolListing, gate?: Promise<void>) {
  const loader = { loads: 0, load: async () => {
    loader.loads += 1;
    await gate;
    return result;
  } };
  return loader;
}

describe('LruToolListCache', () => {
  it('loads a key once for concurrent askers and serves it until the TTL passes', async () => {
    let now = 1_000;
    const cache = new LruToolListCache({ maxEntries: 10, maxChars: 10_000, ttlMs: 40, now: () => now });
    let open!: () => void;
    const loader = counting(listing('a'), new Promise<void>((resolve) => { open = resolve; }));
    const asked = [1, 2, 3, 4, 5].map(() => cache.get('server@v1', loader.load));
    open(); // all five asked while the one load was in flight
    const answers = await Promise.all(asked);
    expect(answers.every((answer) => answer === answers[0])).toBe(true);
    now += 39;
    await cache.get('server@v1', loader.load);
    expect(loader.loads).toBe(1);
    now += 2; // 41 ms since it arrived: past the TTL
    await cache.get('server@v1', loader.load);
    expect(loader.loads).toBe(2);
  });

  it('keeps failures as long as listings', async () => {
    const cache = new LruToolListCache({ maxEntries: 10, maxChars: 10_000, ttlMs: 60_000 });
    const loader = counting({ ok: false, shown: 'upstream address not allowed' });
    await cache.get('bad@v1', loader.load);
    expect(await cache.get('bad@v1', loader.load)).toEqual({ ok: false, shown: 'upstream address not allowed' });
    expect(loader.loads).toBe(1);
  });

  it('holds at most maxEntries listings and maxChars of their JSON, least recently used out first', async () => {
    const cache = new LruToolListCache({ maxEntries: 2, maxChars: 10_000, ttlMs: 60_000 });
    const loaders = ['a', 'b', 'c'].map((name) => counting(listing(name)));
    for (const [i, loader] of loaders.entries()) await cache.get(`k${i}`, loader.load);
    await cache.get('k0', loaders[0].load);
    expect(loaders[0].loads).toBe(2);

    const small = new LruToolListCache({ maxEntries: 100, maxChars: 100, ttlMs: 60_000 });
    const huge = counting({ ok: true, tools: [{ name: 'x'.repeat(200), inputSchema: {} }] });
    await small.get('huge', huge.load);
    await small.get('huge', huge.load);
    expect(huge.loads).toBe(2);
  });
});
