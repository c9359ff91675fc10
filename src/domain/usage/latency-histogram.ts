/** Upper bounds (ms, inclusive) of the latency buckets; one more bucket above the last holds the rest (+Inf). */
export const LATENCY_BOUNDS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000] as const;

/** Counts per bucket: LATENCY_BOUNDS_MS.length + 1 entries. */
export type LatencyHistogram = number[];

export function emptyHistogram(): LatencyHistogram {
  return new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0);
}

/** The bucket a latency falls in (the first bound it does not exceed). */
export function latencyBucket(ms: number): number {
  for (let index = 0; index < LATENCY_BOUNDS_MS.length; index += 1) if (ms <= LATENCY_BOUNDS_MS[index]) return index;
  return LATENCY_BOUNDS_MS.length;
}

/** Adds `from` into `into`, element by element. */
export function addHistogram(into: LatencyHistogram, from: readonly number[]): void {
  for (let index = 0; index < into.length; index += 1) into[index] += from[index] ?? 0;
}

/**
 * The q-quantile (0 < q ≤ 1) estimated from the histogram, by linear
 * interpolation inside the bucket it falls in (the first bucket starts at 0;
 * the open last bucket answers its lower bound). Null for an empty histogram.
 */
export function latencyQuantile(histogram: readonly number[], q: number): number | null {
  const total = histogram.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let index = 0; index < histogram.length; index += 1) {
    const count = histogram[index];
    if (count > 0 && seen + count >= rank) {
      const lower = index === 0 ? 0 : LATENCY_BOUNDS_MS[index - 1];
      if (index === LATENCY_BOUNDS_MS.length) return lower;
      const upper = LATENCY_BOUNDS_MS[index];
      return round(lower + ((rank - seen) / count) * (upper - lower));
    }
    seen += count;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
