import { DataSource } from 'typeorm';
import { ApiKeyChanges, ApiKeyRepository, NewApiKey, RetireKey } from '../../application/ports/api-key-repository.port';
import { TransactionPorts, UnitOfWork } from '../../application/ports/unit-of-work.port';
import { ApiKey } from '../../domain/api-key';
import { TypeormAuditLog } from './audit/typeorm-audit-log';
import { databaseCall } from './database-unavailable';
import { TypeormApiKeyRepository } from './typeorm-api-key.repository';

/**
 * One PostgreSQL transaction per run. Keys changed in it are reported once it
 * has committed (the key cache drops them there and then, so the caller's next
 * request on this replica cannot read the old row; other replicas hear of it
 * through the table's NOTIFY trigger).
 */
export class TypeormUnitOfWork implements UnitOfWork {
  constructor(
    private readonly dataSource: DataSource,
    private readonly onKeysChanged: (ids: readonly string[]) => void = () => undefined,
  ) {}

  async run<T>(work: (ports: TransactionPorts) => Promise<T>): Promise<T> {
    const changed = new Set<string>();
    const result = await databaseCall(this.dataSource.transaction((manager) => work({
      keys: new ChangeTrackingKeys(new TypeormApiKeyRepository(manager), changed),
      audit: new TypeormAuditLog(manager),
    })));
    if (changed.size > 0) this.onKeysChanged([...changed]);
    return result;
  }
}

class ChangeTrackingKeys implements ApiKeyRepository {
  constructor(private readonly inner: ApiKeyRepository, private readonly changed: Set<string>) {}

  insertWithinLimit(key: NewApiKey, limit: number): Promise<ApiKey | null> { return this.inner.insertWithinLimit(key, limit); }
  insert(key: NewApiKey): Promise<ApiKey> { return this.inner.insert(key); }
  findById(id: string): Promise<ApiKey | null> { return this.inner.findById(id); }
  findByHash(keyHash: string): Promise<ApiKey | null> { return this.inner.findByHash(keyHash); }
  listNonRevokedByUser(userId: string): Promise<ApiKey[]> { return this.inner.listNonRevokedByUser(userId); }
  touchLastUsed(id: string, at: Date): Promise<void> { return this.inner.touchLastUsed(id, at); }

  update(id: string, changes: ApiKeyChanges): Promise<ApiKey | null> {
    this.changed.add(id);
    return this.inner.update(id, changes);
  }

  markReplaced(id: string, replacedBy: string, retire: RetireKey): Promise<ApiKey | null> {
    this.changed.add(id);
    return this.inner.markReplaced(id, replacedBy, retire);
  }

  revoke(id: string, at: Date): Promise<boolean> {
    this.changed.add(id);
    return this.inner.revoke(id, at);
  }
}
