import { AuditLog } from '../../src/application/ports/audit-log.port';
import { TransactionPorts, UnitOfWork } from '../../src/application/ports/unit-of-work.port';
import { AuditRecord } from '../../src/domain/audit';
import { InMemoryApiKeyRepository } from './in-memory-api-key.repository';

/** Records what would be appended; use-case tests read `records`. */
export class InMemoryAuditLog implements AuditLog {
  readonly records: AuditRecord[] = [];

  async append(records: readonly AuditRecord[]): Promise<void> {
    this.records.push(...records);
  }
}

/**
 * The in-memory ports as one "transaction": a run that throws keeps its audit
 * records out, as a rollback would (writes to the in-memory repositories are
 * not undone, so tests of failures check the audit trail, not the rows).
 */
export class InMemoryUnitOfWork implements UnitOfWork {
  constructor(readonly keys: InMemoryApiKeyRepository, readonly audit: InMemoryAuditLog = new InMemoryAuditLog()) {}

  async run<T>(work: (ports: TransactionPorts) => Promise<T>): Promise<T> {
    const pending = new InMemoryAuditLog();
    const result = await work({ keys: this.keys, audit: pending });
    await this.audit.append(pending.records);
    return result;
  }
}
