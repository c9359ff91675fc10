import { DataSource } from 'typeorm';
import { ApiKeyChanges, ApiKeyRepository, NewApiKey, RetireKey } from '../../application/ports/api-key-repository.port';
import { RecordFilter, ResourceStore } from '../../application/ports/resource-store.port';
import { TransactionPorts, UnitOfWork } from '../../application/ports/unit-of-work.port';
import { ApiKey } from '../../domain/api-key';
import { RecordLocation, ResourceRecord } from '../../domain/resource/resource-record';
import { PostgresToolCallApprovalStore } from './approvals/postgres-tool-call-approval.store';
import { TypeormAuditLog } from './audit/typeorm-audit-log';
import { ConnectionSecrets } from './connections/connection-secrets';
import { PostgresMcpConnectionStore } from './connections/postgres-mcp-connection.store';
import { databaseCall } from './database-unavailable';
import { EncryptedResourceStore } from './encrypted-resource.store';
import { PostgresResourceStore } from './postgres-resource.store';
import { RecordSecrets } from './record-secrets';
import { TypeormAgentRoleRepository } from './typeorm-agent-role.repository';
import { TypeormApiKeyRepository } from './typeorm-api-key.repository';
import { TypeormModeSessionRepository } from './typeorm-mode-session.repository';
import { TypeormModeToolConfigRepository } from './typeorm-mode-tool-config.repository';
import { TypeormToolRuleStore } from './typeorm-tool-rule-store';
import { TypeormToolPinStore } from './typeorm-tool-pin-store';
import { TypeormQuotaBalances } from './usage/typeorm-quota-balances';

/** What this replica's caches must forget once a run has committed. */
export interface CommittedChanges {
  /** Keys whose rows changed. */
  keys(ids: readonly string[]): void;
  /** Owners whose MCP server records changed. */
  serverOwners(ownerIds: readonly string[]): void;
}

const NOTHING: CommittedChanges = { keys: () => undefined, serverOwners: () => undefined };

/**
 * One PostgreSQL transaction per run. What changed in it is reported once it
 * has committed (the caches drop it there and then, so the caller's next
 * request on this replica cannot read the old row; other replicas hear of it
 * through the tables' NOTIFY triggers).
 */
export class TypeormUnitOfWork implements UnitOfWork {
  constructor(
    private readonly dataSource: DataSource,
    private readonly secrets: RecordSecrets,
    private readonly committed: CommittedChanges = NOTHING,
  ) {}

  async run<T>(work: (ports: TransactionPorts) => Promise<T>): Promise<T> {
    const keys = new Set<string>();
    const owners = new Set<string>();
    const result = await databaseCall(
      this.dataSource.transaction((manager) =>
        work({
          keys: new ChangeTrackingKeys(new TypeormApiKeyRepository(manager), keys),
          roles: new TypeormAgentRoleRepository(manager),
          modes: new TypeormModeToolConfigRepository(manager),
          sessions: new TypeormModeSessionRepository(manager),
          records: new ChangeTrackingRecords(new EncryptedResourceStore(new PostgresResourceStore(manager), this.secrets), owners),
          audit: new TypeormAuditLog(manager),
          quotas: new TypeormQuotaBalances(manager),
          pins: new TypeormToolPinStore(manager),
          toolRules: new TypeormToolRuleStore(manager),
          connections: new PostgresMcpConnectionStore(manager, new ConnectionSecrets(this.secrets.box)),
          approvals: new PostgresToolCallApprovalStore(manager, this.secrets.box),
        }),
      ),
    );
    if (keys.size > 0) this.committed.keys([...keys]);
    if (owners.size > 0) this.committed.serverOwners([...owners]);
    return result;
  }
}

class ChangeTrackingKeys implements ApiKeyRepository {
  constructor(
    private readonly inner: ApiKeyRepository,
    private readonly changed: Set<string>,
  ) {}

  insertWithinLimit(key: NewApiKey, limit: number): Promise<ApiKey | null> {
    return this.inner.insertWithinLimit(key, limit);
  }
  insert(key: NewApiKey): Promise<ApiKey> {
    return this.inner.insert(key);
  }
  findById(id: string): Promise<ApiKey | null> {
    return this.inner.findById(id);
  }
  findByHash(keyHash: string): Promise<ApiKey | null> {
    return this.inner.findByHash(keyHash);
  }
  listNonRevokedByUser(userId: string): Promise<ApiKey[]> {
    return this.inner.listNonRevokedByUser(userId);
  }
  touchLastUsed(id: string, at: Date): Promise<void> {
    return this.inner.touchLastUsed(id, at);
  }

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

class ChangeTrackingRecords implements ResourceStore {
  constructor(
    private readonly inner: ResourceStore,
    private readonly serverOwners: Set<string>,
  ) {}

  find(ownerId: string, at: RecordLocation, id: string): Promise<ResourceRecord | null> {
    return this.inner.find(ownerId, at, id);
  }
  ownerOf(at: RecordLocation, id: string): Promise<string | null> {
    return this.inner.ownerOf(at, id);
  }
  list(ownerId: string, at: RecordLocation, filter?: RecordFilter, limit?: number, offset?: number): Promise<ResourceRecord[]> {
    return this.inner.list(ownerId, at, filter, limit, offset);
  }

  create(ownerId: string, at: RecordLocation, data: Record<string, unknown>, id?: string): Promise<ResourceRecord> {
    this.track(ownerId, at);
    return this.inner.create(ownerId, at, data, id);
  }

  createWithinLimit(
    ownerId: string,
    at: RecordLocation,
    data: Record<string, unknown>,
    limit: number,
    id?: string,
  ): Promise<ResourceRecord | null> {
    this.track(ownerId, at);
    return this.inner.createWithinLimit(ownerId, at, data, limit, id);
  }

  update(ownerId: string, at: RecordLocation, id: string, data: Record<string, unknown>): Promise<ResourceRecord | null> {
    this.track(ownerId, at);
    return this.inner.update(ownerId, at, id, data);
  }

  remove(ownerId: string, at: RecordLocation, id: string): Promise<boolean> {
    this.track(ownerId, at);
    return this.inner.remove(ownerId, at, id);
  }

  private track(ownerId: string, at: RecordLocation): void {
    if (at.resource === 'mcp_servers') this.serverOwners.add(ownerId);
  }
}
