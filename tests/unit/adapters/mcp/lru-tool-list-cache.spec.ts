import { ToolListing } from '../../../../src/application/ports/upstream-mcp.port';
import { LruToolListCache } from '../../../../src/adapters/mcp/upstream/lru-tool-list-cache';

const listing = (name: string): ToolListing => ({ ok: true, tools: [{ name, inputSchema: { type: 'object' } }] });

function counting(result: ToolListing, delayMs = 5) {
  const loader = { loads: 0, load: async () => {
    loader.loads += 1;
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return result;
  } };
  return loader;
}

describe('LruToolListCache', () => {
  it('loads a key once for concurrent askers and serves it until the TTL passes', async () => {
    const cache = new LruToolListCache({ maxEntries: 10, maxChars: 10_000, ttlMs: 40 });
    const loader = counting(listing('a'));
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => cache.get('server@v1', loader.load)));
    expect(answers.every((answer) => answer === answers[0])).toBe(true);
    await cache.get('server@v1', loader.load);
    expect(loader.loads).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 60));
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
    const loaders = ['a', 'b', 'c'].map((name) => counting(listing(name), 0));
    for (const [i, loader] of loaders.entries()) await cache.get(`k${i}`, loader.load);
    await cache.get('k0', loaders[0].load);
    expect(loaders[0].loads).toBe(2);

    const small = new LruToolListCache({ maxEntries: 100, maxChars: 100, ttlMs: 60_000 });
    const huge = counting({ ok: true, tools: [{ name: 'x'.repeat(200), inputSchema: {} }] }, 0);
    await small.get('huge', huge.load);
    await small.get('huge', huge.load);
    expect(huge.loads).toBe(2);
  });
});
