import { AuditAction, AuditEvent, AuditRecord } from '../../domain/audit';

/**
 * Appends events to the tamper-evident trail. Used through a UnitOfWork, so
 * a lifecycle event commits with the change it records, or not at all.
 */
export interface AuditLog {
  append(records: readonly AuditRecord[]): Promise<void>;
}

/**
 * Takes events that need not share a transaction with anything (tool calls)
 * and writes them in batches off the request path; never throws, never waits.
 */
export interface AuditQueue {
  enqueue(record: AuditRecord): void;
}

export interface AuditFilter {
  action?: AuditAction;
  keyId?: string;
  userId?: string;
  since?: Date;
  until?: Date;
  /** Only events with a smaller seq: the page before. */
  beforeSeq?: number;
}

export interface AuditEventReader {
  /** Newest first, at most `limit`. */
  page(filter: AuditFilter, limit: number): Promise<AuditEvent[]>;
}
