import { DataSource } from 'typeorm';
import { PeriodicPrune, PeriodicPruneOptions } from '../periodic-prune';
import { USAGE_TABLES } from './typeorm-usage-store';

/** Hour and day buckets are kept this long, whatever USAGE_RETENTION_DAYS says of minutes. */
export const ROLLUP_RETENTION_DAYS = 400;
/** Rows one DELETE removes at most: a long backlog goes in short transactions. */
export const USAGE_PRUNE_BATCH = 10_000;

export interface UsageRetentionOptions extends PeriodicPruneOptions {
  /** USAGE_RETENTION_DAYS: minute buckets older than this are removed. */
  minuteDays: number;
}

/**
 * Removes usage buckets past retention (minutes after USAGE_RETENTION_DAYS,
 * hours and days after 400 days), in batches of 10,000 rows, scheduled as
 * PeriodicPrune says. Every replica may run it: a second run finds nothing left.
 */
export class UsageRetention extends PeriodicPrune {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: UsageRetentionOptions,
  ) {
    super(options);
  }

  protected async removeExpired(): Promise<number> {
    let removed = await this.pruneTable(USAGE_TABLES.minute, this.options.minuteDays);
    removed += await this.pruneTable(USAGE_TABLES.hour, ROLLUP_RETENTION_DAYS);
    removed += await this.pruneTable(USAGE_TABLES.day, ROLLUP_RETENTION_DAYS);
    return removed;
  }

  private async pruneTable(table: string, days: number): Promise<number> {
    let total = 0;
    for (;;) {
      // The database's clock, not this replica's: every replica agrees on the cutoff.
      const [row] = await this.dataSource.query<{ removed: number }[]>(
        `WITH gone AS (
           DELETE FROM ${table} WHERE ctid IN (
             SELECT ctid FROM ${table} WHERE bucket_start < now() - make_interval(days => $1) LIMIT ${USAGE_PRUNE_BATCH})
           RETURNING 1)
         SELECT count(*)::int AS removed FROM gone`,
        [days],
      );
      total += row.removed;
      if (row.removed < USAGE_PRUNE_BATCH) return total;
    }
  }
}
