import { LRUCache } from 'lru-cache';
import { ItemListCache, ItemListing } from '../../../application/ports/upstream-content.port';

type Load = () => Promise<ItemListing>;

/**
 * Upstream resource, template and prompt listings in a bounded LRU, as
 * LruToolListCache keeps tool listings: at most `maxEntries` listings and
 * `maxChars` characters of their JSON, each kept `ttlMs`, one load shared
 * by everyone asking meanwhile, failures kept as long as listings.
 */
export class LruItemListCache implements ItemListCache {
  private readonly cache: LRUCache<string, ItemListing, Load>;

  constructor(options: { maxEntries: number; maxChars: number; ttlMs: number }) {
    this.cache = new LRUCache<string, ItemListing, Load>({
      max: options.maxEntries,
      maxSize: options.maxChars,
      sizeCalculation: (listing) => (listing.ok ? Math.max(1, JSON.stringify(listing.items).length) : 1),
      ttl: options.ttlMs,
      fetchMethod: (_key, _stale, { context }) => context(),
    });
  }

  async get(key: string, load: Load): Promise<ItemListing> {
    return (await this.cache.fetch(key, { context: load })) as ItemListing;
  }

  forget(key: string): void {
    this.cache.delete(key);
  }
}
