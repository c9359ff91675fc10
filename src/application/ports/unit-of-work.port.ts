import { ApiKeyRepository } from './api-key-repository.port';
import { AuditLog } from './audit-log.port';

/** The ports whose writes share one transaction. */
export interface TransactionPorts {
  keys: ApiKeyRepository;
  audit: AuditLog;
}

/**
 * Runs `work` in one transaction: everything it writes through the ports it is
 * handed commits together, or nothing does when it throws.
 */
export interface UnitOfWork {
  run<T>(work: (ports: TransactionPorts) => Promise<T>): Promise<T>;
}
