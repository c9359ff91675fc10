import { api, UsageReport } from './api';
import { Bucket } from './usage-buckets';

/** The ranges a chart offers, each with the bucket size that keeps it to tens of bars. */
export const RANGES = [
  { id: '1h', label: 'Last hour', ms: 3600_000, bucket: 'minute' },
  { id: '24h', label: 'Last 24 hours', ms: 24 * 3600_000, bucket: 'hour' },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86400_000, bucket: 'day' },
  { id: '30d', label: 'Last 30 days', ms: 30 * 86400_000, bucket: 'day' },
] as const satisfies readonly { id: string; label: string; ms: number; bucket: Bucket }[];

export type RangeId = (typeof RANGES)[number]['id'];

export function loadUsage(range: RangeId, query: Record<string, string>): Promise<UsageReport> {
  const chosen = RANGES.find((r) => r.id === range) ?? RANGES[1];
  const to = new Date();
  const params = new URLSearchParams({
    ...query,
    bucket: chosen.bucket,
    from: new Date(to.getTime() - chosen.ms).toISOString(),
    to: to.toISOString(),
  });
  return api<UsageReport>('GET', `/usage?${params}`).then(({ data }) => data);
}
