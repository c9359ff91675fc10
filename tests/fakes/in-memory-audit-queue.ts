import { AuditQueue } from '../../src/application/ports/audit-log.port';
import { AuditRecord } from '../../src/domain/audit';

/** Keeps what would be queued; tests read `records`. */
export class InMemoryAuditQueue implements AuditQueue {
  readonly records: AuditRecord[] = [];

  enqueue(record: AuditRecord): void {
    this.records.push(record);
  }
}
