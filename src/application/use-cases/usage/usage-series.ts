import { addHistogram, emptyHistogram, latencyQuantile } from '../../../domain/usage';
import { UsagePoint } from '../../ports/usage-store.port';

/** A count with its latency estimates (null when the count is 0). */
export interface UsageStats {
  count: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface UsageSeries {
  group: string;
  /** For group_by=key, when the key still exists. */
  keyPrefix?: string;
  keyName?: string;
  total: UsageStats;
  /** Sparse, ascending by start. */
  points: (UsageStats & { start: Date })[];
}

/** Series answered at most; the rest are summed into one named `other`. */
export const MAX_USAGE_SERIES = 50;

interface Gathered {
  group: string;
  count: number;
  histogram: number[];
  points: Map<number, { count: number; histogram: number[] }>;
}

/** The points gathered per group, largest first (then by name), at most MAX_USAGE_SERIES with the rest as `other`. */
export function seriesOf(
  points: readonly UsagePoint[],
  groupOf: (point: UsagePoint) => string,
): { series: UsageSeries[]; total: UsageStats } {
  const groups = new Map<string, Gathered>();
  const total = { count: 0, histogram: emptyHistogram() };
  for (const point of points) {
    const name = groupOf(point);
    let group = groups.get(name);
    if (!group) groups.set(name, (group = { group: name, count: 0, histogram: emptyHistogram(), points: new Map() }));
    add(group, point.start.getTime(), point.count, point.histogram);
    total.count += point.count;
    addHistogram(total.histogram, point.histogram);
  }
  const ranked = [...groups.values()].sort((a, b) => b.count - a.count || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  const kept = ranked.slice(0, ranked.length > MAX_USAGE_SERIES ? MAX_USAGE_SERIES - 1 : MAX_USAGE_SERIES);
  const rest = ranked.slice(kept.length);
  if (rest.length > 0) {
    // A kept group may itself be named other (tool `other`): the rest join it rather than repeat the name.
    let other = kept.find((group) => group.group === 'other');
    if (!other) kept.push((other = { group: 'other', count: 0, histogram: emptyHistogram(), points: new Map() }));
    for (const group of rest) for (const [start, point] of group.points) add(other, start, point.count, point.histogram);
  }
  return { series: kept.map(present), total: stats(total.count, total.histogram) };
}

function add(group: Gathered, start: number, count: number, histogram: readonly number[]): void {
  group.count += count;
  addHistogram(group.histogram, histogram);
  let point = group.points.get(start);
  if (!point) group.points.set(start, (point = { count: 0, histogram: emptyHistogram() }));
  point.count += count;
  addHistogram(point.histogram, histogram);
}

function present(group: Gathered): UsageSeries {
  const points = [...group.points.entries()]
    .sort(([a], [b]) => a - b)
    .map(([start, point]) => ({ start: new Date(start), ...stats(point.count, point.histogram) }));
  return { group: group.group, total: stats(group.count, group.histogram), points };
}

function stats(count: number, histogram: readonly number[]): UsageStats {
  return { count, p50Ms: latencyQuantile(histogram, 0.5), p95Ms: latencyQuantile(histogram, 0.95) };
}
