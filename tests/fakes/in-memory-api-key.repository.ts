import { randomUUID } from 'node:crypto';
import { ApiKeyChanges, ApiKeyRepository, NewApiKey, RetireKey } from '../../src/application/ports/api-key-repository.port';
import { ApiKey, ApiKeyProps } from '../../src/domain/api-key';

/** The repository port over a Map, for use-case unit tests only. */
export class InMemoryApiKeyRepository implements ApiKeyRepository {
  readonly rows = new Map<string, ApiKeyProps>();
  touches = 0;

  async insertWithinLimit(key: NewApiKey, limit: number): Promise<ApiKey | null> {
    const held = [...this.rows.values()].filter(
      (r) => r.userId === key.userId && ApiKey.restore(r).countsTowardLimitAt(key.createdAt),
    ).length;
    if (held >= limit) return null;
    return this.insert(key);
  }

  async insert(key: NewApiKey): Promise<ApiKey> {
    const props: ApiKeyProps = { ...key, id: randomUUID(), lastUsedAt: null, revokedAt: null, replacedBy: null };
    this.rows.set(props.id, props);
    return ApiKey.restore(props);
  }

  async update(id: string, changes: ApiKeyChanges): Promise<ApiKey | null> {
    const row = this.rows.get(id);
    if (!row || row.revokedAt !== null || row.replacedBy !== null) return null;
    Object.assign(row, Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)));
    return ApiKey.restore(row);
  }

  async markReplaced(id: string, replacedBy: string, retire: RetireKey): Promise<ApiKey | null> {
    const row = this.rows.get(id);
    if (!row || row.revokedAt !== null || row.replacedBy !== null) return null;
    Object.assign(row, { replacedBy }, retire);
    return ApiKey.restore(row);
  }

  async findById(id: string): Promise<ApiKey | null> {
    const row = this.rows.get(id);
    return row ? ApiKey.restore(row) : null;
  }

  async findByHash(keyHash: string): Promise<ApiKey | null> {
    const row = [...this.rows.values()].find((r) => r.keyHash === keyHash);
    return row ? ApiKey.restore(row) : null;
  }

  async listNonRevokedByUser(userId: string): Promise<ApiKey[]> {
    return [...this.rows.values()]
      .filter((r) => r.userId === userId && r.revokedAt === null)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .map((r) => ApiKey.restore(r));
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || row.revokedAt !== null) return false;
    row.revokedAt = at;
    return true;
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    this.touches += 1;
    const row = this.rows.get(id);
    if (row && (row.lastUsedAt === null || row.lastUsedAt < at)) row.lastUsedAt = at;
  }
}
