import { EntityManager, IsNull, Repository } from 'typeorm';
import { ApiKeyChanges, ApiKeyRepository, NewApiKey, RetireKey } from '../../application/ports/api-key-repository.port';
import { ApiKey } from '../../domain/api-key';
import { ApiKeyMapper } from './api-key.mapper';
import { ApiKeyRow, ApiKeyRowSchema } from './api-key.row';
import { databaseCall } from './database-unavailable';
import { NamedStatement, queryNamed } from './named-statement';

export class TypeormApiKeyRepository implements ApiKeyRepository {
  private readonly rows: Repository<ApiKeyRow>;

  /** The data source's manager, or a transaction's (see TypeormUnitOfWork). */
  constructor(private readonly manager: EntityManager) {
    this.rows = manager.getRepository(ApiKeyRowSchema);
  }

  async insertWithinLimit(key: NewApiKey, limit: number): Promise<ApiKey | null> {
    return databaseCall(
      this.manager.transaction(async (manager) => {
        // Serialises creates per user so two concurrent requests cannot both pass the count.
        await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key.userId]);
        // ApiKey.countsTowardLimitAt in SQL: a rolled key past its overlap no longer counts.
        const [{ held }] = await manager.query<{ held: number }[]>(
          `SELECT count(*)::int AS held FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL
           AND (replaced_by IS NULL OR expires_at IS NULL OR expires_at > $2)`,
          [key.userId, key.createdAt],
        );
        if (held >= limit) return null;
        return ApiKeyMapper.toDomain(await manager.save(ApiKeyRowSchema, newRow(manager, key)));
      }),
    );
  }

  async insert(key: NewApiKey): Promise<ApiKey> {
    return ApiKeyMapper.toDomain(await databaseCall(this.manager.save(ApiKeyRowSchema, newRow(this.manager, key))));
  }

  async update(id: string, changes: ApiKeyChanges): Promise<ApiKey | null> {
    return this.updateWhere(id, 'revoked_at IS NULL AND replaced_by IS NULL', ApiKeyMapper.attributeColumns(changes));
  }

  async markReplaced(id: string, replacedBy: string, retire: RetireKey): Promise<ApiKey | null> {
    const columns: Partial<ApiKeyRow> = { replaced_by: replacedBy };
    if ('revokedAt' in retire) columns.revoked_at = retire.revokedAt;
    else columns.expires_at = retire.expiresAt;
    return this.updateWhere(id, 'revoked_at IS NULL AND replaced_by IS NULL', columns);
  }

  async findById(id: string): Promise<ApiKey | null> {
    const row = await databaseCall(this.rows.findOneBy({ id }));
    return row ? ApiKeyMapper.toDomain(row) : null;
  }

  /**
   * Plain SQL rather than findOneBy: with the key cache off or missing, this
   * runs once per request, and TypeORM's query builder cost ~7% of the
   * service's CPU there (bench:scale (f)).
   */
  async findByHash(keyHash: string): Promise<ApiKey | null> {
    const rows = await databaseCall(queryNamed<ApiKeyRow>(this.manager, FIND_BY_HASH, [keyHash]));
    return rows.length > 0 ? ApiKeyMapper.toDomain(rows[0]) : null;
  }

  async listNonRevokedByUser(userId: string): Promise<ApiKey[]> {
    const rows = await databaseCall(
      this.rows.find({
        where: { user_id: userId, revoked_at: IsNull() },
        order: { created_at: 'DESC', id: 'DESC' },
      }),
    );
    return rows.map((row) => ApiKeyMapper.toDomain(row));
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    const result = await databaseCall(this.rows.update({ id, revoked_at: IsNull() }, { revoked_at: at }));
    return (result.affected ?? 0) > 0;
  }

  /** One UPDATE ... RETURNING, so the condition and the change cannot be split by another writer. */
  private async updateWhere(id: string, condition: string, columns: Partial<ApiKeyRow>): Promise<ApiKey | null> {
    const result = await databaseCall(
      this.rows.createQueryBuilder().update().set(columns).where(`id = :id AND ${condition}`, { id }).returning('*').execute(),
    );
    const [row] = result.raw as ApiKeyRow[];
    return row ? ApiKeyMapper.toDomain(row) : null;
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    await this.touchLastUsedBatch([{ id, at }]);
  }

  /** One statement for many keys; GREATEST keeps last_used_at from moving backwards across replicas. */
  async touchLastUsedBatch(entries: readonly { id: string; at: Date }[]): Promise<void> {
    if (entries.length === 0) return;
    await databaseCall(
      this.manager.query(
        `UPDATE api_keys AS k SET last_used_at = GREATEST(COALESCE(k.last_used_at, v.at), v.at)
       FROM unnest($1::uuid[], $2::timestamptz[]) AS v(id, at) WHERE k.id = v.id`,
        [entries.map((e) => e.id), entries.map((e) => e.at.toISOString())],
      ),
    );
  }
}

/** Every uncached /mcp request runs this: a named statement (named-statement.ts says why). Its columns are the row's. */
const FIND_BY_HASH: NamedStatement = {
  name: 'api_keys.find_by_hash',
  text: `SELECT ${Object.keys(ApiKeyRowSchema.options.columns).join(', ')} FROM api_keys WHERE key_hash = $1`,
};

function newRow(manager: EntityManager, key: NewApiKey): ApiKeyRow {
  const { keyPrefix, keyHash, userId, createdAt, budgetId, ...attributes } = key;
  return manager.create(ApiKeyRowSchema, {
    ...ApiKeyMapper.attributeColumns({ ...attributes, rateLimit: attributes.rateLimit ?? null, quota: attributes.quota ?? null }),
    key_prefix: keyPrefix,
    key_hash: keyHash,
    user_id: userId,
    last_used_at: null,
    revoked_at: null,
    created_at: createdAt,
    replaced_by: null,
    budget_id: budgetId ?? null,
  });
}
