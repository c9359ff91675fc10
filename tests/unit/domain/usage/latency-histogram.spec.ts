import { emptyHistogram, LATENCY_BOUNDS_MS, latencyBucket, latencyQuantile } from '../../../../src/domain/usage';

function histogramOf(latencies: number[]): number[] {
  const histogram = emptyHistogram();
  for (const ms of latencies) histogram[latencyBucket(ms)] += 1;
  return histogram;
}

describe('latency histogram', () => {
  it('has one bucket per bound plus +Inf, a latency going to the first bound it does not exceed', () => {
    expect(emptyHistogram()).toHaveLength(LATENCY_BOUNDS_MS.length + 1);
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(1)).toBe(0);
    expect(latencyBucket(1.01)).toBe(1);
    expect(latencyBucket(30_000)).toBe(LATENCY_BOUNDS_MS.length - 1);
    expect(latencyBucket(30_001)).toBe(LATENCY_BOUNDS_MS.length);
  });

  it('estimates quantiles by linear interpolation inside the bucket the rank falls in', () => {
    // Ten calls in (10, 20] ms: the median is halfway through that bucket, p95 near its top.
    const histogram = histogramOf(new Array(10).fill(15));
    expect(latencyQuantile(histogram, 0.5)).toBe(15);
    expect(latencyQuantile(histogram, 0.95)).toBe(19.5);
  });

  it('walks past lower buckets by their counts', () => {
    // 90 calls in [0, 1] ms and 10 in (100, 200]: p50 is in the first bucket, p95 halfway into the other.
    const histogram = histogramOf([...new Array(90).fill(0.5), ...new Array(10).fill(150)]);
    expect(latencyQuantile(histogram, 0.5)).toBeCloseTo(50 / 90, 3);
    expect(latencyQuantile(histogram, 0.95)).toBe(150);
  });

  it('answers the lower bound for the open last bucket, and null for no calls', () => {
    expect(latencyQuantile(histogramOf([60_000]), 0.5)).toBe(30_000);
    expect(latencyQuantile(emptyHistogram(), 0.5)).toBeNull();
  });
});
