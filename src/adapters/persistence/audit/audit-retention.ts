import { DataSource } from 'typeorm';
import { PeriodicPrune, PeriodicPruneOptions } from '../periodic-prune';

export interface AuditRetentionOptions extends PeriodicPruneOptions {
  /** Events older than this many days are removed (AUDIT_RETENTION_DAYS). */
  days: number;
}

/**
 * Removes events past the retention period through keygate_audit_prune
 * (migration 0007), which moves the chain's anchor to the last event removed,
 * so what remains still verifies (scheduled as PeriodicPrune says); every
 * replica may run it, as the function locks the chain's head and a second run
 * finds nothing left to remove.
 */
export class AuditRetention extends PeriodicPrune {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: AuditRetentionOptions,
  ) {
    super(options);
  }

  protected async removeExpired(): Promise<number> {
    // The database's clock, not this replica's: every replica then agrees on the cutoff.
    const [row] = await this.dataSource.query<{ removed: string }[]>(
      'SELECT keygate_audit_prune(now() - make_interval(days => $1)) AS removed',
      [this.options.days],
    );
    return Number(row.removed);
  }
}
