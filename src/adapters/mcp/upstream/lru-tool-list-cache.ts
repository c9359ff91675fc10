import { LRUCache } from 'lru-cache';
import { ToolListCache, ToolListing } from '../../../application/ports/upstream-mcp.port';

type Load = () => Promise<ToolListing>;

/**
 * Upstream tool listings in a bounded LRU (lru-cache): at most `maxEntries`
 * listings and `maxChars` characters of their JSON, each kept `ttlMs` from
 * the moment it arrived. lru-cache's fetch shares one load among everyone
 * asking for the same key meanwhile (single flight). Failures are listings
 * too, kept as long: an upstream that fails is not asked again by every request.
 * `now` (milliseconds, monotonic) is for tests: left out, lru-cache reads
 * performance.now() as before; given, it is read on every look-up (no 1 ms
 * caching of the time), so a test that moves its clock sees the move at once.
 */
export class LruToolListCache implements ToolListCache {
  private readonly cache: LRUCache<string, ToolListing, Load>;

  constructor(options: { maxEntries: number; maxChars: number; ttlMs: number; now?: () => number }) {
    const clock = options.now;
    this.cache = new LRUCache<string, ToolListing, Load>({
      max: options.maxEntries,
      maxSize: options.maxChars,
      sizeCalculation: (listing) => (listing.ok ? Math.max(1, JSON.stringify(listing.tools).length) : 1),
      ttl: options.ttlMs,
      fetchMethod: (_key, _stale, { context }) => context(),
      ...(clock ? { perf: { now: clock }, ttlResolution: 0 } : {}),
    });
  }

  async get(key: string, load: Load): Promise<ToolListing> {
    return (await this.cache.fetch(key, { context: load })) as ToolListing;
  }

  forget(key: string): void {
    this.cache.delete(key);
  }
}
