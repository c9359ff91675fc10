import { DataSource, IsNull, Repository } from 'typeorm';
import { ApiKeyRepository, NewApiKey } from '../../application/ports/api-key-repository.port';
import { ApiKey } from '../../domain/api-key';
import { ApiKeyMapper } from './api-key.mapper';
import { ApiKeyRow, ApiKeyRowSchema } from './api-key.row';
import { databaseCall } from './database-unavailable';

export class TypeormApiKeyRepository implements ApiKeyRepository {
  private readonly rows: Repository<ApiKeyRow>;

  constructor(private readonly dataSource: DataSource) {
    this.rows = dataSource.getRepository(ApiKeyRowSchema);
  }

  async insertWithinLimit(key: NewApiKey, limit: number): Promise<ApiKey | null> {
    return databaseCall(this.dataSource.transaction(async (manager) => {
      // Serialises creates per user so two concurrent requests cannot both pass the count.
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key.userId]);
      const held = await manager.count(ApiKeyRowSchema, { where: { user_id: key.userId, revoked_at: IsNull() } });
      if (held >= limit) return null;
      const row = manager.create(ApiKeyRowSchema, {
        name: key.name,
        key_prefix: key.keyPrefix,
        key_hash: key.keyHash,
        user_id: key.userId,
        scopes: key.scopes.toArray(),
        expires_at: key.expiresAt,
        last_used_at: null,
        revoked_at: null,
        created_at: key.createdAt,
      });
      return ApiKeyMapper.toDomain(await manager.save(ApiKeyRowSchema, row));
    }));
  }

  async findById(id: string): Promise<ApiKey | null> {
    const row = await databaseCall(this.rows.findOneBy({ id }));
    return row ? ApiKeyMapper.toDomain(row) : null;
  }

  async findByHash(keyHash: string): Promise<ApiKey | null> {
    const row = await databaseCall(this.rows.findOneBy({ key_hash: keyHash }));
    return row ? ApiKeyMapper.toDomain(row) : null;
  }

  async listNonRevokedByUser(userId: string): Promise<ApiKey[]> {
    const rows = await databaseCall(this.rows.find({
      where: { user_id: userId, revoked_at: IsNull() },
      order: { created_at: 'DESC', id: 'DESC' },
    }));
    return rows.map(ApiKeyMapper.toDomain);
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    const result = await databaseCall(this.rows.update({ id, revoked_at: IsNull() }, { revoked_at: at }));
    return (result.affected ?? 0) > 0;
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    await this.touchLastUsedBatch([{ id, at }]);
  }

  /** One statement for many keys; GREATEST keeps last_used_at from moving backwards across replicas. */
  async touchLastUsedBatch(entries: readonly { id: string; at: Date }[]): Promise<void> {
    if (entries.length === 0) return;
    await databaseCall(this.dataSource.query(
      `UPDATE api_keys AS k SET last_used_at = GREATEST(COALESCE(k.last_used_at, v.at), v.at)
       FROM unnest($1::uuid[], $2::timestamptz[]) AS v(id, at) WHERE k.id = v.id`,
      [entries.map((e) => e.id), entries.map((e) => e.at.toISOString())],
    ));
  }
}
