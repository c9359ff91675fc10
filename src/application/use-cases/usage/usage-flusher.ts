import { UsageWriter } from '../../ports/usage-store.port';
import { rowsOf, UsageTally } from './usage-tally';

export interface UsageFlusherOptions {
  /** USAGE_FLUSH_INTERVAL_MS. */
  intervalMs: number;
  /** A failed flush, its counts kept for the next one; never thrown. */
  onError: (error: unknown) => void;
  /** Calls the full tally dropped since the last flush. */
  onDropped?: (calls: number) => void;
}

/**
 * Writes the tally every interval and at stop: one statement per flush
 * (UsageWriter.add), nothing when nothing was counted. A flush that fails
 * puts its counts back, so they go with the next one. One flush at a time.
 */
export class UsageFlusher {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly tally: UsageTally,
    private readonly writer: UsageWriter,
    private readonly options: UsageFlusherOptions,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.options.intervalMs);
    this.timer.unref?.();
  }

  /** Stops the timer and writes what is left (graceful shutdown). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.flush();
  }

  /** Writes now; a flush in progress is joined, not doubled. */
  flush(): Promise<void> {
    this.running ??= this.write().finally(() => (this.running = null));
    return this.running;
  }

  private async write(): Promise<void> {
    const { entries, dropped } = this.tally.drain();
    if (dropped > 0) this.options.onDropped?.(dropped);
    if (entries.length === 0) return;
    try {
      await this.writer.add(rowsOf(entries));
    } catch (error) {
      this.tally.restore(entries);
      this.options.onError(error);
    }
  }
}
