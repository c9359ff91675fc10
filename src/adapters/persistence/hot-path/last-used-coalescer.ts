export interface LastUsedEntry {
  id: string;
  at: Date;
}

export type LastUsedWriter = (entries: LastUsedEntry[]) => Promise<void>;

/**
 * Collects last_used_at per key in memory and writes them in one batch per
 * interval, so a busy key costs one UPDATE a second instead of one a request.
 * Only the latest time per key is kept; a failed batch is merged back and
 * retried, so a database outage loses nothing that the process still holds.
 * Until `start` it writes through, so callers without a timer lose nothing.
 */
export class LastUsedCoalescer {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly write: LastUsedWriter,
    readonly intervalMs: number,
    private readonly onBatch: (size: number) => void = () => undefined,
  ) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  async record(id: string, at: Date): Promise<void> {
    const known = this.pending.get(id);
    if (!known || known < at) this.pending.set(id, at);
    if (!this.timer) await this.flush();
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush().catch(() => undefined), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left; throws if that last write fails. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  async flush(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => undefined);
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.write([...batch].map(([id, at]) => ({ id, at }))).then(
      () => this.onBatch(batch.size),
      (error: unknown) => {
        for (const [id, at] of batch) {
          const newer = this.pending.get(id);
          if (!newer || newer < at) this.pending.set(id, at);
        }
        throw error;
      },
    );
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
    }
  }
}
