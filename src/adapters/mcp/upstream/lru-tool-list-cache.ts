import { LRUCache } from 'lru-cache';
import { ToolListCache, ToolListing } from '../../../application/ports/upstream-mcp.port';

type Load = () => Promise<ToolListing>;

/**
 * Upstream tool listings in a bounded LRU (lru-cache): at most `maxEntries`
 * listings and `maxChars` characters of their JSON, each kept `ttlMs` from
 * the moment it arrived. lru-cache's fetch shares one load among everyone
 * asking for the same key meanwhile (single flight). Failures are listings
 * too, kept as long: an upstream that fails is not asked again by every request.
 */
export class LruToolListCache implements ToolListCache {
  private readonly cache: LRUCache<string, ToolListing, Load>;

  constructor(options: { maxEntries: number; maxChars: number; ttlMs: number }) {
    this.cache = new LRUCache<string, ToolListing, Load>({
      max: options.maxEntries,
      maxSize: options.maxChars,
      sizeCalculation: (listing) => (listing.ok ? Math.max(1, JSON.stringify(listing.tools).length) : 1),
      ttl: options.ttlMs,
      fetchMethod: (_key, _stale, { context }) => context(),
    });
  }

  async get(key: string, load: Load): Promise<ToolListing> {
    return (await this.cache.fetch(key, { context: load })) as ToolListing;
  }

  forget(key: string): void {
    this.cache.delete(key);
  }
}
