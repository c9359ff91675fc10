import { AuditQueue } from '../../../application/ports/audit-log.port';
import { AuditRecord } from '../../../domain/audit';
import { DatabaseUnavailableError } from '../../../domain/errors';

/** Writes one batch in one transaction (see TypeormAuditLog). */
export type AuditBatchWriter = (batch: readonly AuditRecord[]) => Promise<void>;

export interface BatchingAuditQueueOptions {
  /** How often what is pending is written: how late an event may show. */
  intervalMs: number;
  /** Events per transaction; a batch that fills is written without waiting for the timer. */
  batchSize: number;
  /** Events held at most while the database is away; past it the oldest are dropped and counted. */
  maxPending: number;
}

const STOP_ATTEMPTS = 3;
const STOP_RETRY_MS = 200;

export type DropReason = 'overflow' | 'rejected';

export interface AuditQueueReports {
  written?: (count: number) => void;
  dropped?: (count: number, reason: DropReason) => void;
  /** Once per outage or overflow, never per tick or per event. */
  warn?: (message: string, error?: unknown) => void;
}

/**
 * Takes events on the request path (a push) and writes them off it: every
 * `intervalMs`, or as soon as a batch fills, one batch per transaction, one
 * flush at a time, in the order they came. While PostgreSQL is away the
 * events are kept and retried on the next tick; a batch PostgreSQL refuses for
 * its content is written event by event, so one bad event cannot hold up the
 * trail. Memory is bounded by `maxPending`. `stop` writes everything left.
 */
export class BatchingAuditQueue implements AuditQueue {
  /** Pending events in batches of at most batchSize, oldest first; the last one takes new events. */
  private batches: AuditRecord[][] = [];
  private pending = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private soon = false;
  private stopped = false;
  private failing = false;
  private droppedSinceWarning = 0;

  constructor(
    private readonly write: AuditBatchWriter,
    private readonly options: BatchingAuditQueueOptions,
    private readonly reports: AuditQueueReports = {},
  ) {}

  get pendingCount(): number {
    return this.pending;
  }

  enqueue(record: AuditRecord): void {
    let last = this.batches[this.batches.length - 1];
    if (last === undefined || last.length >= this.options.batchSize) this.batches.push((last = []));
    last.push(record);
    this.pending += 1;
    if (this.pending > this.options.maxPending) this.dropOldest(this.pending - this.options.maxPending);
    if (last.length >= this.options.batchSize) this.flushSoon();
  }

  start(): void {
    if (this.timer) return;
    this.stopped = false;
    this.timer = setInterval(() => void this.flush().catch(() => undefined), this.options.intervalMs);
    this.timer.unref();
  }

  /**
   * Stops the timer and writes everything, what arrives meanwhile included.
   * A failed write is tried again a few times (a tick's write may have been
   * failing already); then it throws, naming how many events are lost.
   */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopped = true;
    for (let attempt = 1; this.pending > 0 || this.flushing; attempt += 1) {
      try {
        await this.flush();
      } catch (error) {
        if (attempt >= STOP_ATTEMPTS) throw new Error(`${this.pending} audit events could not be written before shutdown`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, STOP_RETRY_MS));
      }
    }
  }

  /** Writes what is pending; a flush already running is joined, not doubled. Rejects when a write failed. */
  flush(): Promise<void> {
    return (this.flushing ??= this.drain().finally(() => (this.flushing = null)));
  }

  private flushSoon(): void {
    if (this.soon || this.stopped) return;
    this.soon = true;
    // Off the caller's stack: the request that filled the batch does not start the write.
    setImmediate(() => {
      this.soon = false;
      void this.flush().catch(() => undefined);
    });
  }

  private async drain(): Promise<void> {
    while (this.batches.length > 0) {
      const batch = this.batches.shift()!;
      this.pending -= batch.length;
      try {
        await this.write(batch);
      } catch (error) {
        if (isTransient(error)) throw this.keep(batch, error);
        await this.writeEach(batch);
        continue;
      }
      this.reports.written?.(batch.length);
      this.recovered();
    }
  }

  /** A batch PostgreSQL refused: each event on its own, and the ones it still refuses are dropped. */
  private async writeEach(batch: AuditRecord[]): Promise<void> {
    for (let i = 0; i < batch.length; i += 1) {
      try {
        await this.write([batch[i]]);
        this.reports.written?.(1);
      } catch (error) {
        if (isTransient(error)) throw this.keep(batch.slice(i), error);
        this.reports.dropped?.(1, 'rejected');
        this.reports.warn?.(`an audit event (${batch[i].action}) was refused by the database and dropped`, error);
      }
    }
  }

  /** Puts a batch back in front, for the next tick; returns the error to rethrow. */
  private keep(batch: AuditRecord[], error: unknown): unknown {
    this.batches.unshift(batch);
    this.pending += batch.length;
    if (this.pending > this.options.maxPending) this.dropOldest(this.pending - this.options.maxPending);
    if (!this.failing) {
      this.failing = true;
      this.reports.warn?.(`audit events could not be written; keeping ${this.pending} and retrying every ${this.options.intervalMs} ms`, error);
    }
    return error;
  }

  private recovered(): void {
    if (!this.failing && this.droppedSinceWarning === 0) return;
    const dropped = this.droppedSinceWarning;
    this.failing = false;
    this.droppedSinceWarning = 0;
    this.reports.warn?.(`audit events are being written again${dropped > 0 ? `; ${dropped} were dropped while the queue was full` : ''}`);
  }

  private dropOldest(count: number): void {
    for (let left = count; left > 0; left -= 1) {
      const first = this.batches[0];
      first.shift();
      if (first.length === 0) this.batches.shift();
    }
    this.pending -= count;
    if (this.droppedSinceWarning === 0) {
      this.reports.warn?.(`the audit queue holds ${this.options.maxPending} events, its limit: dropping the oldest until they can be written`);
    }
    this.droppedSinceWarning += count;
    this.reports.dropped?.(count, 'overflow');
  }
}

function isTransient(error: unknown): boolean {
  return error instanceof DatabaseUnavailableError;
}
