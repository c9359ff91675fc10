import { randomUUID } from 'node:crypto';
import { NewApiKey } from '../../../../src/application/ports/api-key-repository.port';
import { TypeormApiKeyRepository } from '../../../../src/adapters/persistence/typeorm-api-key.repository';
import { ApiKeyRowSchema } from '../../../../src/adapters/persistence/api-key.row';
import { ApiKeyMother } from '../../../mothers/api-key.mother';
import { ScopeSetMother } from '../../../mothers/scope-set.mother';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

let db: TestDatabase;
let repo: TypeormApiKeyRepository;

beforeAll(async () => {
  db = await createTestDatabase();
  repo = new TypeormApiKeyRepository(db.dataSource.manager);
});
afterAll(() => db.drop());

function newKey(overrides: Partial<NewApiKey> = {}): NewApiKey {
  return ApiKeyMother.unsaved({
    name: 'ci key',
    scopes: ScopeSetMother.of('projects:read', 'agents:write'),
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    ...overrides,
  });
}

describe('TypeormApiKeyRepository on PostgreSQL', () => {
  it('stores a key with a database-generated id and reads it back by id and by hash', async () => {
    const input = newKey({ expiresAt: new Date('2027-01-01T00:00:00.000Z') });
    const saved = (await repo.insertWithinLimit(input, 10))!;
    expect(saved.id).toMatch(/^[0-9a-f-]{36}$/);
    const byHash = await repo.findByHash(input.keyHash);
    const byId = await repo.findById(saved.id);
    for (const found of [byHash!, byId!]) {
      expect(found.id).toBe(saved.id);
      expect(found.scopes.toArray()).toEqual(['projects:read', 'agents:write']);
      expect(found.expiresAt).toEqual(input.expiresAt);
      expect(found.createdAt).toEqual(input.createdAt);
      expect(found.lastUsedAt).toBeNull();
      expect(found.revokedAt).toBeNull();
    }
  });

  it('reads by hash (a named statement listing its columns) exactly what it reads by id (every column of the row)', async () => {
    const { id } = (await repo.insertWithinLimit(newKey(), 10))!;
    await db.dataSource.query(
      `UPDATE api_keys SET rate_limit_limit = 50, rate_limit_window_seconds = 60, has_quota = true, quota_refill_amount = 10,
         quota_refill_interval = 'day', budget_id = $2, last_used_at = now() WHERE id = $1`,
      [id, randomUUID()],
    );
    const byId = (await repo.findById(id))!;
    expect(await repo.findByHash(byId.keyHash)).toEqual(byId);
    expect(byId.rateLimit).toEqual({ limit: 50, windowSeconds: 60 });
    // FIND_BY_HASH reads the row's columns: a column of the table the row does not map would be left out.
    const columns = await db.dataSource.query<{ column_name: string }[]>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'api_keys'`,
    );
    expect(columns.map((c) => c.column_name).sort()).toEqual(Object.keys(ApiKeyRowSchema.options.columns).sort());
  });

  it('rejects a second key with the same hash (unique index)', async () => {
    const input = newKey();
    await repo.insertWithinLimit(input, 10);
    await expect(repo.insertWithinLimit({ ...input, userId: randomUUID() }, 10)).rejects.toThrow(/duplicate key/);
  });

  it('lists non-revoked keys newest first and leaves revoked ones out', async () => {
    const userId = randomUUID();
    const older = await repo.insertWithinLimit(newKey({ userId, createdAt: new Date('2026-01-01T00:00:00Z') }), 10);
    const newer = await repo.insertWithinLimit(newKey({ userId, createdAt: new Date('2026-02-01T00:00:00Z') }), 10);
    const revoked = await repo.insertWithinLimit(newKey({ userId, createdAt: new Date('2026-03-01T00:00:00Z') }), 10);
    expect(await repo.revoke(revoked!.id, new Date())).toBe(true);
    const listed = await repo.listNonRevokedByUser(userId);
    expect(listed.map((k) => k.id)).toEqual([newer!.id, older!.id]);
  });

  it('revokes once: a second revoke changes nothing', async () => {
    const key = (await repo.insertWithinLimit(newKey(), 10))!;
    const at = new Date('2026-05-05T05:05:05.000Z');
    expect(await repo.revoke(key.id, at)).toBe(true);
    expect(await repo.revoke(key.id, new Date())).toBe(false);
    expect((await repo.findById(key.id))!.revokedAt).toEqual(at);
  });

  it('moves last_used_at forward only', async () => {
    const key = (await repo.insertWithinLimit(newKey(), 10))!;
    const later = new Date('2026-07-01T00:00:00.000Z');
    await repo.touchLastUsed(key.id, later);
    await repo.touchLastUsed(key.id, new Date('2026-06-01T00:00:00.000Z'));
    expect((await repo.findById(key.id))!.lastUsedAt).toEqual(later);
  });

  it('enforces the per-user limit atomically under concurrent creates', async () => {
    const userId = randomUUID();
    const results = await Promise.all(Array.from({ length: 12 }, () => repo.insertWithinLimit(newKey({ userId }), 5)));
    expect(results.filter((r) => r !== null)).toHaveLength(5);
    expect(await repo.listNonRevokedByUser(userId)).toHaveLength(5);
  });

  it('does not count revoked keys toward the limit', async () => {
    const userId = randomUUID();
    const first = (await repo.insertWithinLimit(newKey({ userId }), 1))!;
    expect(await repo.insertWithinLimit(newKey({ userId }), 1)).toBeNull();
    await repo.revoke(first.id, new Date());
    expect(await repo.insertWithinLimit(newKey({ userId }), 1)).not.toBeNull();
  });

  it('counts a rolled key until its overlap ends, then no more, and edits no rolled key', async () => {
    const userId = randomUUID();
    const at = new Date('2026-01-01T00:00:00.000Z');
    const old = (await repo.insertWithinLimit(newKey({ userId, createdAt: at }), 2))!;
    const next = (await repo.insertWithinLimit(newKey({ userId, createdAt: at }), 2))!;
    await repo.markReplaced(old.id, next.id, { expiresAt: new Date(at.getTime() + 60_000) });
    expect(await repo.insertWithinLimit(newKey({ userId, createdAt: new Date(at.getTime() + 59_000) }), 2)).toBeNull();
    expect(await repo.insertWithinLimit(newKey({ userId, createdAt: new Date(at.getTime() + 60_000) }), 2)).not.toBeNull();
    expect(await repo.update(old.id, { expiresAt: null })).toBeNull();
    expect((await repo.findById(old.id))!.expiresAt).toEqual(new Date(at.getTime() + 60_000));
  });

  it('has the schema of the migrations: text[] scopes, timestamptz columns, indexes', async () => {
    const columns: { column_name: string; data_type: string }[] = await db.dataSource.query(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'api_keys'`,
    );
    const types = Object.fromEntries(columns.map((c) => [c.column_name, c.data_type]));
    expect(types.scopes).toBe('ARRAY');
    for (const c of ['expires_at', 'last_used_at', 'revoked_at', 'created_at']) {
      expect(types[c]).toBe('timestamp with time zone');
    }
    const indexes: { indexname: string }[] = await db.dataSource.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'api_keys'`);
    expect(indexes.map((i) => i.indexname)).toEqual(expect.arrayContaining(['api_keys_key_hash_uq', 'api_keys_user_active_idx']));
  });
});
