import { LRUCache } from 'lru-cache';
import { LoadingCache } from '../../../application/ports/loading-cache.port';

type Load<T> = () => Promise<T>;

/**
 * LoadingCache over a bounded LRU (lru-cache): at most `maxEntries` values,
 * each kept `ttlMs` from the moment it arrived; lru-cache's fetch shares one
 * load among everyone asking for the same key meanwhile (single flight).
 * With `maxChars`, the values' JSON is bounded too: an upstream listing may
 * be megabytes, so a count alone would not bound the heap; a value larger
 * than `maxChars` on its own is served but not kept.
 * `now` (milliseconds, monotonic) is for tests: left out, lru-cache reads
 * performance.now() as before; given, it is read on every look-up (no 1 ms
 * caching of the time), so a test that moves its clock sees the move at once.
 */
export class LruLoadingCache<T extends object> implements LoadingCache<T> {
  private readonly cache: LRUCache<string, T, Load<T>>;

  constructor(options: { maxEntries: number; ttlMs: number; maxChars?: number; now?: () => number }) {
    const clock = options.now;
    this.cache = new LRUCache<string, T, Load<T>>({
      max: options.maxEntries,
      ttl: options.ttlMs,
      ...(options.maxChars === undefined
        ? {}
        : {
            maxSize: options.maxChars,
            // lru-cache refuses a size of 0; a failure (`{ ok: false, … }`) is small but still an entry.
            sizeCalculation: (value: T) => Math.max(1, JSON.stringify(value).length),
          }),
      fetchMethod: (_key, _stale, { context }) => context(),
      ...(clock ? { perf: { now: clock }, ttlResolution: 0 } : {}),
    });
  }

  async get(key: string, load: Load<T>): Promise<T> {
    // `load` does not throw (the port's contract), so a rejection is lru-cache's: the key was forgotten (or evicted)
    // while its load was under way, and that load began before the change the forget announced. Loaded again,
    // uncached if it is forgotten once more: a caller gets a value, never the cache's "deleted".
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        return (await this.cache.fetch(key, { context: load })) as T;
      } catch {
        // forgotten or evicted mid-load: again
      }
    }
    return load();
  }

  forget(key: string): void {
    this.cache.delete(key);
  }
}
