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
 * and writes them in batches shared by concurrent callers. The promise
 * resolves once the event is committed, and rejects when it could not be
 * (DatabaseUnavailableError while PostgreSQL is away): a caller that waits
 * for it never answers for an event the trail may not have.
 */
export interface AuditQueue {
  append(record: AuditRecord): Promise<void>;
}

export interface AuditFilter {
  action?: AuditAction;
  keyId?: string;
  userId?: string;
  /** occurred_at at or after. */
  since?: Date;
  /** occurred_at at or before. */
  until?: Date;
  /** Only events with a smaller seq: the page before. */
  beforeSeq?: number;
  /** Only events with a larger seq: the batch after. */
  afterSeq?: number;
  /** Only events up to this seq: an export ends where the chain's head was when it began. */
  throughSeq?: number;
}

/** Where verification starts (the last pruned event, or 0 and the genesis hash) and where it must end. */
export interface AuditChainState {
  anchorSeq: number;
  anchorHash: string;
  headSeq: number;
  headHash: string;
}

export interface AuditEventReader {
  /** Newest first, at most `limit`: the pages of GET /api/v1/audit-events. */
  page(filter: AuditFilter, limit: number): Promise<AuditEvent[]>;
  /** Oldest first, at most `limit`: the export and the chain's verification walk the trail with it. */
  batch(filter: AuditFilter, limit: number): Promise<AuditEvent[]>;
  chain(): Promise<AuditChainState>;
}
