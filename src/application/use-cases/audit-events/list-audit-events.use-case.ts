import { AuditEvent } from '../../../domain/audit';
import { ValidationError } from '../../../domain/errors';
import { AuditEventReader, AuditFilter } from '../../ports/audit-log.port';
import { parseFields } from '../guards';
import { AuditQueryInput, optional, parseAuditFilter, restrictToActor } from './audit-query';
import { decodeCursor, encodeCursor } from './audit-cursor';

export const DEFAULT_AUDIT_PAGE = 100;
export const MAX_AUDIT_PAGE = 1000;

export interface ListAuditEventsInput extends AuditQueryInput {
  /** 1 to 1000, default 100. */
  limit?: number;
  /** next_cursor of the page before. */
  cursor?: string;
}

export interface AuditEventPage {
  events: AuditEvent[];
  /** Null on the last page. */
  nextCursor: string | null;
}

/**
 * One page of the audit trail, newest first. Paging is by seq (keyset), so
 * events written while a caller pages appear on no later page and none is
 * skipped or repeated.
 */
export class ListAuditEvents {
  constructor(private readonly reader: AuditEventReader) {}

  async execute(input: ListAuditEventsInput): Promise<AuditEventPage> {
    const parsed = parseFields<{ filter: AuditFilter; limit: number; beforeSeq: number }>({
      filter: () => parseAuditFilter(input),
      limit: () => (input.limit === undefined ? DEFAULT_AUDIT_PAGE : parseLimit(input.limit)),
      beforeSeq: optional(input.cursor, 'cursor', decodeCursor),
    });
    const filter = restrictToActor(parsed.filter, input.actor);
    const { limit, beforeSeq } = parsed;
    // One more than asked for tells whether a next page exists without a count.
    const rows = await this.reader.page({ ...filter, beforeSeq }, limit + 1);
    const events = rows.slice(0, limit);
    return { events, nextCursor: rows.length > limit ? encodeCursor(events[events.length - 1].seq) : null };
  }
}

/** An integer, or the decimal digits of one as a query string carries it. */
function parseLimit(value: unknown): number {
  if (Array.isArray(value)) throw ValidationError.single('limit', 'must be given once');
  const limit = typeof value === 'string' && /^\d{1,7}$/.test(value) ? Number(value) : value;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIT_PAGE) {
    throw ValidationError.single('limit', `must be an integer from 1 to ${MAX_AUDIT_PAGE}`);
  }
  return limit;
}
