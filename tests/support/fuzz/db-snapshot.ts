import { DataSource } from 'typeorm';

/** Per table, its row count and an md5 of all its rows: equal snapshots mean nothing was written. */
export type DbSnapshot = Record<string, string>;

/**
 * Columns left out of the comparison. api_keys.last_used_at moves on every
 * successful key validation, and /mcp validates the key before it reads the
 * body, so a request refused with 4xx for its body still counts as a use
 * (written by the coalescer up to LAST_USED_FLUSH_MS later, possibly during a
 * later request). It is a use, not a row written for the refused request.
 */
const IGNORED_COLUMNS: Record<string, string[]> = { api_keys: ['last_used_at'] };

/**
 * Rows left out. A tools/call refused for scope is a 403 that is recorded
 * (tool.denied): the refusal is written to the trail, nothing else is. The
 * chain's head follows audit_events, so it is compared through them.
 */
const IGNORED_ROWS: Record<string, string> = { audit_events: "action <> 'tool.denied'" };
/**
 * Usage counters (docs/usage.md): each replica counts calls, refused ones too
 * (denied, rate_limited, quota_exhausted are outcomes it must count), and
 * writes the counts in a batch every USAGE_FLUSH_INTERVAL_MS, possibly during
 * a later request. Like last_used_at, a count of uses, not a row written for
 * the refused request.
 */
const USAGE_TABLES = ['tool_usage_minutes', 'tool_usage_hours', 'tool_usage_days'];
const IGNORED_TABLES = ['migrations', 'typeorm_metadata', 'audit_chain', ...USAGE_TABLES];

/**
 * Builds one query over every table of the schema but TypeORM's bookkeeping and the chain head,
 * so a table added by a later migration is covered without editing this file.
 */
export async function snapshotter(dataSource: DataSource): Promise<() => Promise<DbSnapshot>> {
  const tables: { name: string }[] = await dataSource.query(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND NOT (table_name = ANY($1))
      ORDER BY table_name`,
    [IGNORED_TABLES],
  );
  const parts = tables.map(({ name }) => {
    const row = (IGNORED_COLUMNS[name] ?? []).reduce((expr, column) => `${expr} - '${column}'`, 'to_jsonb(t)');
    const where = IGNORED_ROWS[name] ? ` WHERE ${IGNORED_ROWS[name]}` : '';
    return `SELECT '${name}' AS name, count(*)::text || ':' || md5(coalesce(string_agg((${row})::text, '|' ORDER BY (${row})::text), '')) AS digest FROM "${name}" t${where}`;
  });
  const sql = parts.join(' UNION ALL ');
  return async () => {
    const rows: { name: string; digest: string }[] = await dataSource.query(sql);
    return Object.fromEntries(rows.map((r) => [r.name, r.digest]));
  };
}

/** Names of the tables whose digest differs. */
export function changedTables(before: DbSnapshot, after: DbSnapshot): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => before[name] !== after[name]);
}
