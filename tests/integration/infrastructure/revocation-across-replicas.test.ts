import { randomUUID } from 'node:crypto';
import { LISTENER_APPLICATION_NAME } from '../../../src/adapters/persistence/hot-path/change-listener';
import { RandomKeyGenerator } from '../../../src/adapters/crypto/random-key-generator';
import { Sha256KeyHasher } from '../../../src/adapters/crypto/sha256-key-hasher';
import { displayPrefixOf } from '../../../src/domain/api-key';
import { ScopeSet } from '../../../src/domain/scope';
import { eventually, Replica, startReplica } from '../../support/replica';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

let db: TestDatabase;
let a: Replica;
let b: Replica;

beforeAll(async () => {
  db = await createTestDatabase();
  // Caches off at once when the listener drops; the stale window is the failover e2e test's.
  a = await startReplica(db.url, 1000, { KEY_CACHE_STALE_AFTER_MS: '0' });
  b = await startReplica(db.url, 1000, { KEY_CACHE_STALE_AFTER_MS: '0' });
});
afterAll(async () => {
  await a.close();
  await b.close();
  await db.drop();
});

async function newKey() {
  const rawKey = new RandomKeyGenerator().generate();
  const key = await a.keys.insertWithinLimit(
    {
      name: 'replicated',
      keyPrefix: displayPrefixOf(rawKey),
      keyHash: new Sha256KeyHasher().hash(rawKey),
      userId: randomUUID(),
      scopes: ScopeSet.full(),
      expiresAt: null,
      createdAt: new Date(),
    },
    100,
  );
  return { rawKey, id: key!.id };
}

describe('key changes across replicas (LISTEN/NOTIFY)', () => {
  it('drops a key cached by one replica within 100 ms of its revocation through another', async () => {
    const { rawKey, id } = await newKey();
    await a.validateKey.execute({ rawKey });
    await b.validateKey.execute({ rawKey });
    expect(a.hotPath.cache.size).toBe(1);

    expect(await b.keys.revoke(id, new Date())).toBe(true);
    await expect(b.validateKey.execute({ rawKey })).rejects.toThrow('API key');
    const elapsed = await eventually(() => a.hotPath.cache.size === 0, 100);
    expect(elapsed).toBeLessThanOrEqual(100);
    await expect(a.validateKey.execute({ rawKey })).rejects.toThrow('API key');
  });

  it('hears revocations written straight to the table, not only through the service', async () => {
    const { rawKey, id } = await newKey();
    await a.validateKey.execute({ rawKey });
    await db.dataSource.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]);
    await eventually(() => a.hotPath.cache.size === 0, 100);
    await expect(a.validateKey.execute({ rawKey })).rejects.toThrow('API key');
  });

  it.each([
    ['scopes', `UPDATE api_keys SET scopes = '{chat:read}' WHERE id = $1`],
    ['expires_at', `UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`],
    ['name', `UPDATE api_keys SET name = 'renamed' WHERE id = $1`],
  ])('drops a cached key within 100 ms of a change to its %s written in SQL', async (_column, sql) => {
    const { rawKey, id } = await newKey();
    await a.validateKey.execute({ rawKey });
    expect(a.hotPath.cache.size).toBe(1);
    await db.dataSource.query(sql, [id]);
    expect(await eventually(() => a.hotPath.cache.size === 0, 100)).toBeLessThanOrEqual(100);
  });

  it('serves the changed row after the eviction: narrowed scopes, a passed expiry', async () => {
    const narrowed = await newKey();
    const expired = await newKey();
    for (const { rawKey } of [narrowed, expired]) await a.validateKey.execute({ rawKey });
    await db.dataSource.query(`UPDATE api_keys SET scopes = '{chat:read}' WHERE id = $1`, [narrowed.id]);
    await db.dataSource.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id]);
    await eventually(() => a.hotPath.cache.size === 0, 100);
    expect((await a.validateKey.execute({ rawKey: narrowed.rawKey })).scopes.toArray()).toEqual(['chat:read']);
    await expect(a.validateKey.execute({ rawKey: expired.rawKey })).rejects.toThrow('API key');
  });

  it('keeps a key cached when only its last_used_at is written, as the coalescer does every second', async () => {
    const used = await newKey();
    const sentinel = await newKey();
    const [usedHash, sentinelHash] = [used, sentinel].map(({ rawKey }) => new Sha256KeyHasher().hash(rawKey));
    for (const { rawKey } of [used, sentinel]) await a.validateKey.execute({ rawKey });
    await a.hotPath.lastUsed.flush();
    await db.dataSource.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [used.id]);
    // Notifications arrive in commit order: once the sentinel's is in, one for last_used_at would have been too.
    await db.dataSource.query(`UPDATE api_keys SET name = 'sentinel' WHERE id = $1`, [sentinel.id]);
    await eventually(() => a.hotPath.cache.get(sentinelHash) === undefined, 100);
    expect(a.hotPath.cache.get(usedHash)?.id).toBe(used.id);
  });

  it('turns the cache off when the listener connection drops, and back on, empty, after reconnecting', async () => {
    const { rawKey } = await newKey();
    await a.validateKey.execute({ rawKey });
    expect(a.hotPath.cache.size).toBeGreaterThan(0);
    await db.dataSource.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
      [LISTENER_APPLICATION_NAME],
    );
    await eventually(() => !a.hotPath.cache.isEnabled, 2000);
    expect(a.hotPath.cache.size).toBe(0);
    await eventually(() => a.hotPath.cache.isEnabled && b.hotPath.cache.isEnabled, 5000);
    await a.validateKey.execute({ rawKey });
    expect(a.hotPath.cache.size).toBe(1);
  });

  it('forgets every cached key when the table is truncated', async () => {
    const { rawKey } = await newKey();
    await a.validateKey.execute({ rawKey });
    expect(a.hotPath.cache.size).toBeGreaterThan(0);
    await db.dataSource.query('TRUNCATE api_keys');
    await eventually(() => a.hotPath.cache.size === 0, 100);
    await expect(a.validateKey.execute({ rawKey })).rejects.toThrow('API key');
  });

  it('coalesces last_used_at from both replicas without ever moving it backwards', async () => {
    const { id } = await newKey();
    const later = new Date('2030-01-01T00:00:10Z');
    await a.keys.touchLastUsed(id, later);
    await b.keys.touchLastUsed(id, new Date('2030-01-01T00:00:05Z'));
    await a.hotPath.lastUsed.flush();
    await b.hotPath.lastUsed.flush();
    const [row] = await db.dataSource.query('SELECT last_used_at FROM api_keys WHERE id = $1', [id]);
    expect(new Date(row.last_used_at)).toEqual(later);
  });
});

describe("each user's MCP server list, cached per replica", () => {
  const servers = { resource: 'mcp_servers' as const, parentId: null, subresource: null };

  it('is dropped on every replica when any of them (or SQL) changes it', async () => {
    const user = randomUUID();
    expect(await a.hotPath.resources.list(user, servers)).toEqual([]);
    await b.hotPath.resources.create(user, servers, { name: 'docs', url: 'https://docs.example/mcp' });
    await eventually(async () => (await a.hotPath.resources.list(user, servers)).length === 1, 100);
    await db.dataSource.query(`DELETE FROM resource_records WHERE user_id = $1`, [user]);
    await eventually(async () => (await a.hotPath.resources.list(user, servers)).length === 0, 100);
  });
});
