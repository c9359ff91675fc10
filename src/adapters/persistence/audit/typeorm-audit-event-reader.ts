import { EntityManager } from 'typeorm';
import { AuditChainState, AuditEventReader, AuditFilter } from '../../../application/ports/audit-log.port';
import { AuditEvent } from '../../../domain/audit';
import { databaseCall } from '../database-unavailable';
import { AUDIT_COLUMNS, AuditEventRow, toAuditEvent } from './audit-event.row';

/**
 * Reads audit_events by keyset on seq, never by OFFSET, so a page deep in the
 * trail costs what the first one does. Each equality filter has an index
 * ending in seq (migration 0007), which serves both the order and the range.
 * Given a transaction's manager (REPEATABLE READ), every read sees one snapshot.
 */
export class TypeormAuditEventReader implements AuditEventReader {
  constructor(private readonly manager: EntityManager) {}

  page(filter: AuditFilter, limit: number): Promise<AuditEvent[]> {
    return this.select(filter, 'DESC', limit);
  }

  batch(filter: AuditFilter, limit: number): Promise<AuditEvent[]> {
    return this.select(filter, 'ASC', limit);
  }

  async chain(): Promise<AuditChainState> {
    const [row] = await databaseCall(
      this.manager.query<{ head_seq: string; head_hash: string; anchor_seq: string; anchor_hash: string }[]>(
        'SELECT head_seq, head_hash, anchor_seq, anchor_hash FROM audit_chain WHERE id = 1',
      ),
    );
    return {
      anchorSeq: Number(row.anchor_seq),
      anchorHash: String(row.anchor_hash).trim(),
      headSeq: Number(row.head_seq),
      headHash: String(row.head_hash).trim(),
    };
  }

  private async select(filter: AuditFilter, order: 'ASC' | 'DESC', limit: number): Promise<AuditEvent[]> {
    const { where, params } = conditions(filter);
    params.push(limit);
    const rows: AuditEventRow[] = await databaseCall(
      this.manager.query(`SELECT ${AUDIT_COLUMNS} FROM audit_events ${where} ORDER BY seq ${order} LIMIT $${params.length}`, params),
    );
    return rows.map(toAuditEvent);
  }
}

function conditions(filter: AuditFilter): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    clauses.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.action !== undefined) add('action = ?', filter.action);
  if (filter.keyId !== undefined) add('key_id = ?', filter.keyId);
  if (filter.userId !== undefined) add('user_id = ?', filter.userId);
  if (filter.since !== undefined) add('occurred_at >= ?', filter.since.toISOString());
  if (filter.until !== undefined) add('occurred_at <= ?', filter.until.toISOString());
  if (filter.beforeSeq !== undefined) add('seq < ?', filter.beforeSeq);
  if (filter.afterSeq !== undefined) add('seq > ?', filter.afterSeq);
  if (filter.throughSeq !== undefined) add('seq <= ?', filter.throughSeq);
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', params };
}
