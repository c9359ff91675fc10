import { ApiKeyChanges, ApiKeyRepository, NewApiKey, RetireKey } from '../../../application/ports/api-key-repository.port';
import { ApiKey } from '../../../domain/api-key';
import { TypeormApiKeyRepository } from '../typeorm-api-key.repository';
import { KeyCache } from './key-cache';
import { LastUsedCoalescer } from './last-used-coalescer';

/**
 * The repository as the validation hot path needs it: lookups by hash served
 * from the cache, last_used_at coalesced into batches. Everything else goes
 * straight to PostgreSQL.
 */
export class HotPathApiKeyRepository implements ApiKeyRepository {
  constructor(
    private readonly inner: TypeormApiKeyRepository,
    private readonly cache: KeyCache,
    private readonly lastUsed: LastUsedCoalescer,
    private readonly onLookup: (hit: boolean) => void = () => undefined,
  ) {}

  async findByHash(keyHash: string): Promise<ApiKey | null> {
    const cached = this.cache.get(keyHash);
    this.onLookup(cached !== undefined);
    if (cached) return cached;
    return this.cache.load(keyHash, () => this.inner.findByHash(keyHash));
  }

  touchLastUsed(id: string, at: Date): Promise<void> {
    return this.lastUsed.record(id, at);
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    const changed = await this.inner.revoke(id, at);
    // Other replicas hear of it through NOTIFY; this one must not wait for that.
    this.cache.evict(id);
    return changed;
  }

  async update(id: string, changes: ApiKeyChanges): Promise<ApiKey | null> {
    const key = await this.inner.update(id, changes);
    this.cache.evict(id);
    return key;
  }

  async markReplaced(id: string, replacedBy: string, retire: RetireKey): Promise<ApiKey | null> {
    const key = await this.inner.markReplaced(id, replacedBy, retire);
    this.cache.evict(id);
    return key;
  }

  insert(key: NewApiKey): Promise<ApiKey> {
    return this.inner.insert(key);
  }

  insertWithinLimit(key: NewApiKey, limit: number): Promise<ApiKey | null> {
    return this.inner.insertWithinLimit(key, limit);
  }

  findById(id: string): Promise<ApiKey | null> {
    return this.inner.findById(id);
  }

  listNonRevokedByUser(userId: string): Promise<ApiKey[]> {
    return this.inner.listNonRevokedByUser(userId);
  }
}
