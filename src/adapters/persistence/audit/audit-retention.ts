import { DataSource } from 'typeorm';

export interface AuditRetentionOptions {
  /** Events older than this many days are removed (AUDIT_RETENTION_DAYS). */
  days: number;
  /** How often to prune after the first run at start. */
  intervalMs: number;
  onPruned?: (removed: number) => void;
  /** A failed run is reported here and retried at the next interval; it never throws. */
  onError: (error: unknown) => void;
}

/**
 * Removes events past the retention period through keygate_audit_prune
 * (migration 0007), which moves the chain's anchor to the last event removed,
 * so what remains still verifies. Runs at start and then on a timer that does
 * not keep the process alive; every replica may run it, as the function locks
 * the chain's head and a second run finds nothing left to remove.
 */
export class AuditRetention {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: AuditRetentionOptions,
  ) {}

  async start(): Promise<void> {
    if (this.timer) return;
    await this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Prunes now; the number of events removed (0 when the run failed). A run in progress is joined, not doubled. */
  runOnce(): Promise<number> {
    this.running ??= this.prune().finally(() => (this.running = null));
    return this.running;
  }

  private async prune(): Promise<number> {
    try {
      // The database's clock, not this replica's: every replica then agrees on the cutoff.
      const [row] = await this.dataSource.query<{ removed: string }[]>(
        'SELECT keygate_audit_prune(now() - make_interval(days => $1)) AS removed',
        [this.options.days],
      );
      const removed = Number(row.removed);
      if (removed > 0) this.options.onPruned?.(removed);
      return removed;
    } catch (error) {
      this.options.onError(error);
      return 0;
    }
  }
}
