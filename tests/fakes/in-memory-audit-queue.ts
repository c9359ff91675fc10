import { AuditQueue } from '../../src/application/ports/audit-log.port';
import { AuditRecord } from '../../src/domain/audit';

/** Keeps what would be written; tests read `records`, and `failWith` makes the next appends fail as a write would. */
export class InMemoryAuditQueue implements AuditQueue {
  readonly records: AuditRecord[] = [];
  failWith: Error | null = null;

  async append(record: AuditRecord): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.records.push(record);
  }
}
