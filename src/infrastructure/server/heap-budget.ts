import { getHeapStatistics } from 'node:v8';

/**
 * Heap a cached key takes: its compact record (cached-key.ts), its hash and
 * its lru-cache and by-id entries came to ~470 bytes each when 100,000 were
 * measured (bench/key-cache-memory.ts; a whole ApiKey took ~1.3 KB). The rest
 * is room for its user's cached MCP-server list, kept within the same entry
 * count, when every key has a user of its own.
 */
export const CACHED_KEY_BYTES = 640;

/**
 * A warning for start-up when a full key cache would take more than half the
 * heap the process may use (192 MB of old space by default, see node-flags),
 * which would end in an out-of-memory crash under load rather than at start.
 */
export function heapBudgetWarning(keyCacheEntries: number, heapLimitBytes = getHeapStatistics().heap_size_limit): string | null {
  const needed = keyCacheEntries * CACHED_KEY_BYTES;
  if (needed <= heapLimitBytes / 2) return null;
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
  return (
    `KEY_CACHE_MAX_ENTRIES=${keyCacheEntries} can take ~${mb(needed)} MB of heap when the cache is full, ` +
    `more than half of the ${mb(heapLimitBytes)} MB this process may use: raise --max-old-space-size or lower KEY_CACHE_MAX_ENTRIES`
  );
}
