import { LRUCache } from 'lru-cache';
import { ExpiringCache } from '../../../application/ports/expiring-cache.port';

type Load<T> = () => Promise<{ value: T; keepUntil: Date }>;

/**
 * ExpiringCache over a bounded LRU (lru-cache): at most `maxEntries` values,
 * each with the time to live its load gave it; lru-cache's fetch shares one
 * load among everyone asking for the same key meanwhile, and keeps nothing
 * when the load rejects. `now` (milliseconds) is the clock keepUntil is read
 * against, so a test's clock moves expiry too.
 */
export class LruExpiringCache<T extends object | string> implements ExpiringCache<T> {
  private readonly cache: LRUCache<string, { value: T; keepUntil: number }, Load<T>>;
  private readonly now: () => number;

  constructor(options: { maxEntries: number; now: () => number }) {
    const now = options.now;
    this.now = now;
    this.cache = new LRUCache<string, { value: T; keepUntil: number }, Load<T>>({
      max: options.maxEntries,
      perf: { now },
      ttlResolution: 0,
      // A key evicted while its load is under way (maxEntries others asked meanwhile) would otherwise reject its
      // askers with lru-cache's "evicted": they get the load's value instead, and it is not kept.
      ignoreFetchAbort: true,
      fetchMethod: async (_key, _stale, { context, options: set }) => {
        const { value, keepUntil } = await context();
        // A ttl of 0 would keep it forever: one already due gets a millisecond, and get() drops it.
        set.ttl = Math.max(1, keepUntil.getTime() - now());
        return { value, keepUntil: keepUntil.getTime() };
      },
    });
  }

  async get(key: string, load: Load<T>): Promise<T> {
    const held = (await this.cache.fetch(key, { context: load }))!;
    if (held.keepUntil <= this.now()) this.cache.delete(key);
    return held.value;
  }
}
