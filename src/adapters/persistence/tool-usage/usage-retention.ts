import { DataSource } from 'typeorm';
import { USAGE_TABLES } from './typeorm-usage-store';

/** Hour and day buckets are kept this long, whatever USAGE_RETENTION_DAYS says of minutes. */
export const ROLLUP_RETENTION_DAYS = 400;
/** Rows one DELETE removes at most: a long backlog goes in short transactions. */
export const USAGE_PRUNE_BATCH = 10_000;

export interface UsageRetentionOptions {
  /** USAGE_RETENTION_DAYS: minute buckets older than this are removed. */
  minuteDays: number;
  intervalMs: number;
  onPruned?: (removed: number) => void;
  /** A failed run is reported here and retried at the next interval; it never throws. */
  onError: (error: unknown) => void;
}

/**
 * Removes usage buckets past retention (minutes after USAGE_RETENTION_DAYS,
 * hours and days after 400 days) at start and then on a timer that does not
 * keep the process alive, in batches of 10,000 rows. Every replica may run
 * it: a second run finds nothing left.
 */
export class UsageRetention {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: UsageRetentionOptions,
  ) {}

  async start(): Promise<void> {
    if (this.timer) return;
    await this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Prunes now; the number of rows removed (0 when the run failed). A run in progress is joined. */
  runOnce(): Promise<number> {
    this.running ??= this.prune().finally(() => (this.running = null));
    return this.running;
  }

  private async prune(): Promise<number> {
    try {
      let removed = await this.pruneTable(USAGE_TABLES.minute, this.options.minuteDays);
      removed += await this.pruneTable(USAGE_TABLES.hour, ROLLUP_RETENTION_DAYS);
      removed += await this.pruneTable(USAGE_TABLES.day, ROLLUP_RETENTION_DAYS);
      if (removed > 0) this.options.onPruned?.(removed);
      return removed;
    } catch (error) {
      this.options.onError(error);
      return 0;
    }
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
