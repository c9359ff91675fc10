import { CACHED_KEY_BYTES, heapBudgetWarning } from '../../../src/infrastructure/server/heap-budget';

const MB = 2 ** 20;

describe('the start-up heap budget check', () => {
  it('is quiet when a full key cache fits in half the heap', () => {
    expect(heapBudgetWarning(10_000, 240 * MB)).toBeNull();
    expect(heapBudgetWarning((120 * MB) / CACHED_KEY_BYTES, 240 * MB)).toBeNull();
  });

  it('warns, naming both settings, when it would not', () => {
    const warning = heapBudgetWarning(1_000_000, 240 * MB);
    expect(warning).toContain('KEY_CACHE_MAX_ENTRIES=1000000');
    expect(warning).toContain('~610 MB');
    expect(warning).toContain('240 MB');
    expect(warning).toContain('--max-old-space-size');
  });
});
