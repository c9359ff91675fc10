import { DataSource } from 'typeorm';
import { KeyLabel, UsagePoint, UsageQuery, UsageReader, UsageRow, UsageWriter } from '../../../application/ports/usage-store.port';
import { addHistogram, BucketSize } from '../../../domain/usage';

export const USAGE_TABLES: Record<BucketSize, string> = {
  minute: 'tool_usage_minutes',
  hour: 'tool_usage_hours',
  day: 'tool_usage_days',
};

const GROUP_COLUMNS = { tool: 'tool', outcome: 'outcome', key: 'key_id::text', user: 'user_id::text' } as const;

const upsert = (size: BucketSize): string => `
  ${size}s AS (
    INSERT INTO ${USAGE_TABLES[size]} AS t (bucket_start, user_id, key_id, tool, outcome, count, latency_sum_ms, histogram)
    SELECT bucket_start, user_id, key_id, tool, outcome, count, latency_sum_ms, histogram::bigint[]
    FROM input WHERE size = '${size}' ORDER BY ordinal
    ON CONFLICT ON CONSTRAINT ${USAGE_TABLES[size]}_bucket_key DO UPDATE SET
      count = t.count + EXCLUDED.count,
      latency_sum_ms = t.latency_sum_ms + EXCLUDED.latency_sum_ms,
      histogram = keygate_add_counts(t.histogram, EXCLUDED.histogram)
  )`;

/**
 * One flush in one statement: every row of every size is added to what is
 * stored (data-modifying CTEs, one transaction), so a replica's minute, hour
 * and day counts land together or not at all, and replicas' writes add up.
 * Rows go in a fixed order (size, then the caller's sort), so two replicas
 * flushing the same buckets lock them in the same order.
 */
const ADD = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::bigint[], $8::float8[], $9::text[])
      WITH ORDINALITY AS u(size, bucket_start, user_id, key_id, tool, outcome, count, latency_sum_ms, histogram, ordinal)
  ),
  ${upsert('minute')},
  ${upsert('hour')},
  ${upsert('day')}
  SELECT 1`;

/** The usage tables (migration 1763900000023): batched additive writes and grouped reads. */
export class TypeormUsageStore implements UsageReader, UsageWriter {
  constructor(private readonly dataSource: DataSource) {}

  async add(rows: readonly UsageRow[]): Promise<void> {
    if (rows.length === 0) return;
    const sorted = merged(rows).sort(byIdentity);
    await this.dataSource.query(ADD, [
      sorted.map((row) => row.size),
      sorted.map((row) => row.bucketStart.toISOString()),
      sorted.map((row) => row.userId),
      sorted.map((row) => row.keyId),
      sorted.map((row) => row.tool),
      sorted.map((row) => row.outcome),
      sorted.map((row) => String(row.count)),
      sorted.map((row) => row.latencySumMs),
      sorted.map((row) => `{${row.histogram.join(',')}}`),
    ]);
  }

  async points(query: UsageQuery): Promise<UsagePoint[]> {
    const params: unknown[] = [query.from.toISOString(), query.to.toISOString()];
    const where = ['bucket_start >= $1', 'bucket_start < $2'];
    const filter = (column: string, value: string | undefined): void => {
      if (value === undefined) return;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    };
    filter('user_id', query.userId);
    filter('key_id', query.keyId);
    filter('tool', query.tool);
    const group = query.groupBy ? GROUP_COLUMNS[query.groupBy] : 'NULL::text';
    const rows = await this.dataSource.query<{ start: Date; grp: string | null; count: string; histogram: string[] }[]>(
      `SELECT bucket_start AS start, ${group} AS grp, sum(count)::text AS count, keygate_sum_counts(histogram)::text[] AS histogram
       FROM ${USAGE_TABLES[query.size]} WHERE ${where.join(' AND ')}
       GROUP BY 1, 2 ORDER BY 1`,
      params,
    );
    return rows.map((row) => ({
      start: new Date(row.start),
      group: row.grp,
      count: Number(row.count),
      histogram: row.histogram.map(Number),
    }));
  }

  async keyLabels(ids: readonly string[]): Promise<Map<string, KeyLabel>> {
    if (ids.length === 0) return new Map();
    const rows = await this.dataSource.query<{ id: string; key_prefix: string; name: string }[]>(
      'SELECT id, key_prefix, name FROM api_keys WHERE id = ANY($1::uuid[])',
      [ids],
    );
    return new Map(rows.map((row) => [row.id, { prefix: row.key_prefix, name: row.name }]));
  }
}

/** One row per identity: an upsert may not touch a row twice in one statement. */
function merged(rows: readonly UsageRow[]): UsageRow[] {
  const byKey = new Map<string, UsageRow>();
  for (const row of rows) {
    const key = [row.size, row.bucketStart.getTime(), row.userId, row.keyId ?? '', row.tool, row.outcome].join('\u0000');
    const seen = byKey.get(key);
    if (!seen) {
      byKey.set(key, { ...row, histogram: [...row.histogram] });
      continue;
    }
    seen.count += row.count;
    seen.latencySumMs += row.latencySumMs;
    addHistogram(seen.histogram, row.histogram);
  }
  return [...byKey.values()];
}

const SIZE_ORDER: Record<BucketSize, number> = { minute: 0, hour: 1, day: 2 };

function byIdentity(a: UsageRow, b: UsageRow): number {
  return (
    SIZE_ORDER[a.size] - SIZE_ORDER[b.size] ||
    a.bucketStart.getTime() - b.bucketStart.getTime() ||
    compare(a.userId, b.userId) ||
    compare(a.keyId ?? '', b.keyId ?? '') ||
    compare(a.tool, b.tool) ||
    compare(a.outcome, b.outcome)
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
