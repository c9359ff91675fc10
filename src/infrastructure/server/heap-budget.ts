import { getHeapStatistics } from 'node:v8';

/**
 * Heap a cached key takes: the ApiKey, its ScopeSet and its cache entries
 * came to ~2 KB each when 100,000 were measured (lru-cache and its by-id
 * index take ~2% more than the two maps before them). Each user's cached
 * MCP-server list is kept within the same entry count.
 */
export const CACHED_KEY_BYTES = 2048;

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
