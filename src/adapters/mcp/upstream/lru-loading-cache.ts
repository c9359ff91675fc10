import { LRUCache } from 'lru-cache';
import { LoadingCache } from '../../../application/ports/loading-cache.port';

type Load<T> = () => Promise<T>;

/** LoadingCache over a bounded LRU: at most `maxEntries` values, each kept `ttlMs`, one load shared by everyone asking meanwhile. */
export class LruLoadingCache<T extends object> implements LoadingCache<T> {
  private readonly cache: LRUCache<string, T, Load<T>>;

  constructor(options: { maxEntries: number; ttlMs: number }) {
    this.cache = new LRUCache<string, T, Load<T>>({
      max: options.maxEntries,
      ttl: options.ttlMs,
      fetchMethod: (_key, _stale, { context }) => context(),
    });
  }

  async get(key: string, load: Load<T>): Promise<T> {
    return (await this.cache.fetch(key, { context: load })) as T;
  }
}
