import { bucketLabel, bucketStarts, countsAt } from '../../../web/src/usage-buckets';

describe("the console's usage buckets", () => {
  it('lists every bucket start of the range, empty ones included', () => {
    expect(bucketStarts({ bucket: 'hour', from: '2026-11-27T06:00:00.000Z', to: '2026-11-27T09:00:00.000Z' })).toEqual([
      '2026-11-27T06:00:00.000Z',
      '2026-11-27T07:00:00.000Z',
      '2026-11-27T08:00:00.000Z',
    ]);
    expect(bucketStarts({ bucket: 'minute', from: '2026-11-27T08:00:00.000Z', to: '2026-11-27T09:00:00.000Z' })).toHaveLength(60);
    expect(bucketStarts({ bucket: 'day', from: '2026-11-20T00:00:00.000Z', to: '2026-11-28T00:00:00.000Z' })).toHaveLength(8);
  });

  it('counts a sparse series as zero where it has no point, whatever the timestamp spelling', () => {
    const starts = bucketStarts({ bucket: 'hour', from: '2026-11-27T06:00:00.000Z', to: '2026-11-27T09:00:00.000Z' });
    const series = {
      group: 'called',
      total: { count: 5, p50_ms: 1, p95_ms: 2 },
      points: [{ start: '2026-11-27T07:00:00Z', count: 5, p50_ms: 1, p95_ms: 2 }],
    };
    expect(countsAt(series, starts)).toEqual([0, 5, 0]);
    expect(countsAt(undefined, starts)).toEqual([0, 0, 0]);
  });

  it('labels buckets in UTC, as short as their size allows', () => {
    expect(bucketLabel('2026-11-27T08:05:00.000Z', 'minute')).toBe('08:05');
    expect(bucketLabel('2026-11-27T08:00:00.000Z', 'hour')).toBe('11-27 08:00');
    expect(bucketLabel('2026-11-27T00:00:00.000Z', 'day')).toBe('2026-11-27');
  });
});
