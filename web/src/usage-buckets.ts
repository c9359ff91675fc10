import type { components } from './api.generated';

type UsageReport = components['schemas']['UsageReport'];
type UsageSeries = components['schemas']['UsageSeries'];

export type Bucket = UsageReport['bucket'];

export const OUTCOMES = ['called', 'denied', 'rate_limited', 'quota_exhausted', 'upstream_error'] as const;

const STEP: Record<Bucket, number> = { minute: 60_000, hour: 3600_000, day: 86400_000 };

/** Every bucket start of the report's range: the API leaves empty buckets out, a chart shows them as zero. */
export function bucketStarts(report: Pick<UsageReport, 'bucket' | 'from' | 'to'>): string[] {
  const step = STEP[report.bucket];
  const starts: string[] = [];
  for (let t = Date.parse(report.from); t < Date.parse(report.to); t += step) starts.push(new Date(t).toISOString());
  return starts;
}

/** A series' counts at each of `starts`, zero where it has no point. */
export function countsAt(series: UsageSeries | undefined, starts: string[]): number[] {
  const byStart = new Map((series?.points ?? []).map((p) => [Date.parse(p.start), p.count]));
  return starts.map((s) => byStart.get(Date.parse(s)) ?? 0);
}

/** A bucket's label in UTC, as short as its size allows. */
export function bucketLabel(start: string, bucket: Bucket): string {
  const iso = new Date(start).toISOString();
  if (bucket === 'day') return iso.slice(0, 10);
  if (bucket === 'hour') return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
  return iso.slice(11, 16);
}

export function msText(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}
