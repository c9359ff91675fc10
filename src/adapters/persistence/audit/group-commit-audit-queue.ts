import { AuditQueue } from '../../../application/ports/audit-log.port';
import { AuditRecord } from '../../../domain/audit';
import { DatabaseUnavailableError } from '../../../domain/errors';

/** Writes one batch in one transaction (see TypeormAuditLog). */
export type AuditBatchWriter = (batch: readonly AuditRecord[]) => Promise<void>;

export interface GroupCommitAuditQueueOptions {
  /** How long events kept through a failed write wait for their next try when no new event brings it sooner. */
  retryMs: number;
  /** Events per transaction at most; what gathers beyond it is written in the batches after. */
  batchSize: number;
  /** Events kept at most while the database is away; past it the oldest are dropped and counted. */
  maxKept: number;
}

const STOP_ATTEMPTS = 3;
const STOP_RETRY_MS = 200;
const ignore = (): void => undefined;

export type DropReason = 'overflow' | 'rejected';

export interface AuditQueueReports {
  written?: (count: number) => void;
  dropped?: (count: number, reason: DropReason) => void;
  /** Once per outage or overflow, never per write or per event. */
  warn?: (message: string, error?: unknown) => void;
}

/** The events of the callers waiting on one batch, and the one promise they all wait on. */
class Batch {
  readonly records: AuditRecord[] = [];
  readonly committed: Promise<void>;
  resolve!: () => void;
  reject!: (error: unknown) => void;

  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Whoever appended awaits it; this only keeps a batch nobody awaits from being an unhandled rejection.
    this.committed.catch(ignore);
  }
}

/**
 * Group commit. `append` resolves once the event is committed, so a caller
 * can wait for it before it answers. One batch is written at a time (one
 * transaction; the chain's head row orders the replicas); the events that
 * arrive meanwhile gather into the next batch, which is written as soon as
 * the one before is done, never after a fixed wait: a caller waits for about
 * one insert, and under load a batch holds the events of one insert's time.
 * When PostgreSQL is away, the batch written and every one waiting are
 * rejected, and their events kept, in order, to be written before any new
 * one (on the next append, or after `retryMs`), up to `maxKept`. A batch
 * PostgreSQL refuses for its content is written event by event, so one bad
 * event keeps no other out of the trail; its callers are rejected. `stop`
 * writes everything left.
 */
export class GroupCommitAuditQueue implements AuditQueue {
  /** Events whose callers were already told of a failed write, oldest first, in chunks of at most batchSize. */
  private kept: AuditRecord[][] = [];
  private keptCount = 0;
  /** Batches with callers waiting, oldest first; the last takes new events until it is full. */
  private waiting: Batch[] = [];
  private waitingCount = 0;
  private writingCount = 0;
  private writing: Promise<void> | null = null;
  private scheduled = false;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;
  private failing = false;
  private droppedSinceWarning = 0;

  constructor(
    private readonly write: AuditBatchWriter,
    private readonly options: GroupCommitAuditQueueOptions,
    private readonly reports: AuditQueueReports = {},
  ) {}

  /** Events not yet written, the batch being written included. */
  get pendingCount(): number {
    return this.keptCount + this.writingCount + this.waitingCount;
  }

  append(record: AuditRecord): Promise<void> {
    let batch = this.waiting[this.waiting.length - 1];
    if (batch === undefined || batch.records.length >= this.options.batchSize) this.waiting.push((batch = new Batch()));
    batch.records.push(record);
    this.waitingCount += 1;
    this.writeSoon();
    return batch.committed;
  }

  /**
   * Writes everything, what arrives meanwhile included. A failed write is
   * tried again a few times; then it throws, naming how many events are lost.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry !== null) clearTimeout(this.retry);
    this.retry = null;
    for (let attempt = 1; this.pendingCount > 0 || this.writing !== null; attempt += 1) {
      try {
        await this.flush();
      } catch (error) {
        if (attempt >= STOP_ATTEMPTS)
          throw new Error(`${this.pendingCount} audit events could not be written before shutdown`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, STOP_RETRY_MS));
      }
    }
  }

  /** Writes what is pending; a write loop already running is joined, not doubled. Rejects when a write failed. */
  flush(): Promise<void> {
    if (this.writing === null) this.writing = this.drain().finally(this.drained);
    return this.writing;
  }

  private writeSoon(): void {
    if (this.writing !== null || this.scheduled) return;
    // Off the caller's stack, at the end of this turn of the event loop: the calls answered in it share the batch.
    this.scheduled = true;
    setImmediate(this.writeScheduled);
  }

  private readonly writeScheduled = (): void => {
    this.scheduled = false;
    void this.flush().catch(ignore);
  };

  /** An event appended after the loop found nothing left, but before it ended, still gets its write. */
  private readonly drained = (): void => {
    this.writing = null;
    if (this.waiting.length > 0) this.writeSoon();
  };

  /** Oldest first: what was kept through a failure, then each waiting batch; what arrives meanwhile is written next. */
  private async drain(): Promise<void> {
    for (;;) {
      const kept = this.kept.shift();
      if (kept !== undefined) {
        this.keptCount -= kept.length;
        await this.writeBatch(kept, null);
        continue;
      }
      const batch = this.waiting.shift();
      if (batch === undefined) return;
      this.waitingCount -= batch.records.length;
      await this.writeBatch(batch.records, batch);
    }
  }

  /** Writes one batch and settles its callers; throws, having kept what was not written, when the database is away. */
  private async writeBatch(records: AuditRecord[], callers: Batch | null): Promise<void> {
    this.writingCount = records.length;
    try {
      await this.write(records);
    } catch (error) {
      if (isTransient(error)) throw this.keep(records, callers, error);
      return await this.writeEach(records, callers);
    } finally {
      this.writingCount = 0;
    }
    this.reports.written?.(records.length);
    this.recovered();
    callers?.resolve();
  }

  /** A batch PostgreSQL refused: each event on its own, and the ones it still refuses are dropped. */
  private async writeEach(records: AuditRecord[], callers: Batch | null): Promise<void> {
    let refusal: unknown = null;
    for (let i = 0; i < records.length; i += 1) {
      try {
        await this.write([records[i]]);
        this.reports.written?.(1);
      } catch (error) {
        if (isTransient(error)) throw this.keep(records.slice(i), callers, error);
        refusal ??= error;
        this.reports.dropped?.(1, 'rejected');
        this.reports.warn?.(`an audit event (${records[i].action}) was refused by the database and dropped`, error);
      }
    }
    if (refusal === null) callers?.resolve();
    else callers?.reject(refusal);
  }

  /**
   * The database is away: the callers of this batch and of every waiting one
   * are told now (the waiting ones would be written after it), and all their
   * events are kept for the next try, this batch's first. Returns the error to rethrow.
   */
  private keep(records: AuditRecord[], callers: Batch | null, error: unknown): unknown {
    callers?.reject(error);
    this.kept.unshift(records);
    this.keptCount += records.length;
    for (const batch of this.waiting) {
      batch.reject(error);
      this.keepLast(batch.records);
    }
    this.waiting = [];
    this.waitingCount = 0;
    if (this.keptCount > this.options.maxKept) this.dropOldest(this.keptCount - this.options.maxKept);
    if (!this.failing) {
      this.failing = true;
      this.reports.warn?.(`audit events could not be written; keeping ${this.keptCount} and trying again`, error);
    }
    this.retryLater();
    return error;
  }

  /** Adds to the last kept chunk while it has room, so that an outage's many small batches are retried as few. */
  private keepLast(records: AuditRecord[]): void {
    const last = this.kept[this.kept.length - 1];
    if (last !== undefined && last.length + records.length <= this.options.batchSize) last.push(...records);
    else this.kept.push(records);
    this.keptCount += records.length;
  }

  private retryLater(): void {
    if (this.stopped || this.retry !== null) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.flush().catch(ignore);
    }, this.options.retryMs);
    this.retry.unref();
  }

  private recovered(): void {
    if (!this.failing && this.droppedSinceWarning === 0) return;
    const dropped = this.droppedSinceWarning;
    this.failing = false;
    this.droppedSinceWarning = 0;
    this.reports.warn?.(`audit events are being written again${dropped > 0 ? `; ${dropped} were dropped while the queue was full` : ''}`);
  }

  private dropOldest(count: number): void {
    for (let left = count; left > 0;) {
      const first = this.kept[0];
      const n = Math.min(left, first.length);
      first.splice(0, n);
      if (first.length === 0) this.kept.shift();
      left -= n;
    }
    this.keptCount -= count;
    if (this.droppedSinceWarning === 0) {
      this.reports.warn?.(`the audit queue holds ${this.options.maxKept} events, its limit: dropping the oldest until they can be written`);
    }
    this.droppedSinceWarning += count;
    this.reports.dropped?.(count, 'overflow');
  }
}

function isTransient(error: unknown): boolean {
  return error instanceof DatabaseUnavailableError;
}
