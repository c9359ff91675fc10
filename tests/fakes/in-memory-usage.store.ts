import { KeyLabel, UsagePoint, UsageQuery, UsageReader, UsageRow, UsageWriter } from '../../src/application/ports/usage-store.port';
import { addHistogram } from '../../src/domain/usage';

/** The usage tables over an array: additive like the real upsert; `failing` makes every write reject. */
export class InMemoryUsageStore implements UsageReader, UsageWriter {
  readonly rows: UsageRow[] = [];
  readonly labels = new Map<string, KeyLabel>();
  writes = 0;
  failing = false;

  async add(rows: readonly UsageRow[]): Promise<void> {
    this.writes += 1;
    if (this.failing) throw new Error('database unavailable');
    for (const row of rows) {
      const seen = this.rows.find(
        (r) =>
          r.size === row.size &&
          r.bucketStart.getTime() === row.bucketStart.getTime() &&
          r.userId === row.userId &&
          r.keyId === row.keyId &&
          r.tool === row.tool &&
          r.outcome === row.outcome,
      );
      if (!seen) {
        this.rows.push({ ...row, histogram: [...row.histogram] });
        continue;
      }
      seen.count += row.count;
      seen.latencySumMs += row.latencySumMs;
      addHistogram(seen.histogram, row.histogram);
    }
  }

  async points(query: UsageQuery): Promise<UsagePoint[]> {
    const matching = this.rows.filter(
      (row) =>
        row.size === query.size &&
        row.bucketStart >= query.from &&
        row.bucketStart < query.to &&
        (query.userId === undefined || row.userId === query.userId) &&
        (query.keyId === undefined || row.keyId === query.keyId) &&
        (query.tool === undefined || row.tool === query.tool),
    );
    const points = new Map<string, UsagePoint>();
    for (const row of matching) {
      const group =
        query.groupBy === undefined
          ? null
          : query.groupBy === 'key'
            ? row.keyId
            : query.groupBy === 'user'
              ? row.userId
              : row[query.groupBy];
      const id = `${row.bucketStart.getTime()}|${group}`;
      const point = points.get(id) ?? { start: row.bucketStart, group, count: 0, histogram: row.histogram.map(() => 0) };
      point.count += row.count;
      addHistogram(point.histogram, row.histogram);
      points.set(id, point);
    }
    return [...points.values()].sort((a, b) => a.start.getTime() - b.start.getTime());
  }

  async keyLabels(ids: readonly string[]): Promise<Map<string, KeyLabel>> {
    return new Map(ids.filter((id) => this.labels.has(id)).map((id) => [id, this.labels.get(id)!]));
  }
}
