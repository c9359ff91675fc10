export interface PeriodicPruneOptions {
  /** How often to prune after the first run at start. */
  intervalMs: number;
  onPruned?: (removed: number) => void;
  /** A failed run is reported here and retried at the next interval; it never throws. */
  onError: (error: unknown) => void;
}

/**
 * A retention job: `removeExpired` runs at start and then on a timer that
 * does not keep the process alive. A run in progress is joined, not doubled;
 * a failed one is reported and counts as nothing removed. Every replica may
 * run it: each subclass's removal finds nothing left after another's.
 */
export abstract class PeriodicPrune {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  protected constructor(private readonly schedule: PeriodicPruneOptions) {}

  async start(): Promise<void> {
    if (this.timer) return;
    await this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), this.schedule.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Prunes now; the number of rows removed (0 when the run failed). A run in progress is joined, not doubled. */
  runOnce(): Promise<number> {
    this.running ??= this.prune().finally(() => (this.running = null));
    return this.running;
  }

  /** Removes what retention no longer keeps; the number of rows removed. */
  protected abstract removeExpired(): Promise<number>;

  private async prune(): Promise<number> {
    try {
      const removed = await this.removeExpired();
      if (removed > 0) this.schedule.onPruned?.(removed);
      return removed;
    } catch (error) {
      this.schedule.onError(error);
      return 0;
    }
  }
}
