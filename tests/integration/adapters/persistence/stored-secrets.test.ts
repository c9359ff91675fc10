import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { AesGcmSecretBox } from '../../../../src/adapters/crypto/aes-gcm-secret-box';
import { EncryptedResourceStore } from '../../../../src/adapters/persistence/encrypted-resource.store';
import { PostgresResourceStore } from '../../../../src/adapters/persistence/postgres-resource.store';
import { RecordSecrets } from '../../../../src/adapters/persistence/record-secrets';
import { StoredSecrets } from '../../../../src/adapters/persistence/stored-secrets';
import { topLevel } from '../../../../src/domain/resource/resource-record';
import { tablesContaining } from '../../../support/plaintext-scan';
import { cleanEnv, ROOT } from '../../../support/service-process';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

const SERVERS = topLevel('mcp_servers');
const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const storeWith = (current: Buffer, previous: Buffer[] = []) =>
  new EncryptedResourceStore(new PostgresResourceStore(db.dataSource.manager), new RecordSecrets(new AesGcmSecretBox(current, previous)));
const resealer = (current: Buffer, previous: Buffer[] = []) =>
  new StoredSecrets(db.dataSource, new RecordSecrets(new AesGcmSecretBox(current, previous)));
const storedHeaders = async (id: string): Promise<Record<string, string>> =>
  (await db.dataSource.query('SELECT data FROM resource_records WHERE id = $1', [id]))[0].data.headers;
const secret = () => `Bearer tok-${randomBytes(9).toString('hex')}`;

describe('header values at rest', () => {
  it('appear in no table in plaintext, and search or query cannot find them', async () => {
    const [owner, value] = [randomUUID(), secret()];
    const store = storeWith(newKey);
    const server = await store.create(owner, SERVERS, {
      name: 'files',
      url: 'https://f.example.com/mcp',
      headers: { Authorization: value },
    });
    await store.update(owner, SERVERS, server.id, { ...server.data, headers: { Authorization: value, 'X-Extra': value } });
    expect(await tablesContaining(db.dataSource, value.slice(7))).toEqual([]);
    expect((await store.find(owner, SERVERS, server.id))!.data.headers).toEqual({ Authorization: value, 'X-Extra': value });
    expect(await store.list(owner, SERVERS, { text: value.slice(7, 14) })).toEqual([]);
    expect(await store.list(owner, SERVERS, { text: 'v1:' })).toEqual([]);
    expect(await store.list(owner, SERVERS, { where: { headers: { Authorization: value } } })).toEqual([]);
  });

  it('written before encryption are encrypted by the start-up sweep, which leaves previous-key values alone', async () => {
    const [owner, value] = [randomUUID(), secret()];
    const legacy = await new PostgresResourceStore(db.dataSource.manager).create(owner, SERVERS, {
      name: 'legacy',
      headers: { Authorization: value },
    });
    const underOld = await storeWith(oldKey).create(owner, SERVERS, { name: 'old', headers: { Authorization: secret() } });
    const before = await storedHeaders(underOld.id);
    expect((await resealer(newKey, [oldKey]).reseal('upgrade')).changed).toBeGreaterThanOrEqual(1);
    expect(await tablesContaining(db.dataSource, value)).toEqual([]);
    expect(await storedHeaders(underOld.id)).toEqual(before);
    expect((await storeWith(newKey).find(owner, SERVERS, legacy.id))!.data.headers).toEqual({ Authorization: value });
    expect((await resealer(newKey, [oldKey]).reseal('upgrade')).changed).toBe(0);
  });

  it('bound the older way (v1: owner and name only) keep working, and the start-up sweep binds them to their record under the same key', async () => {
    const [owner, value] = [randomUUID(), secret()];
    const older = new AesGcmSecretBox(oldKey)
      .encrypt(value, JSON.stringify([owner, 'mcp_servers', 'headers', 'Authorization']))
      .replace(/^v2:/, 'v1:');
    const plain = new PostgresResourceStore(db.dataSource.manager);
    const [one, two] = [
      await plain.create(owner, SERVERS, { name: 'one', headers: { Authorization: older } }),
      await plain.create(owner, SERVERS, { name: 'two' }),
    ];
    expect((await storeWith(newKey, [oldKey]).find(owner, SERVERS, one.id))!.data.headers).toEqual({ Authorization: value });
    expect((await resealer(newKey, [oldKey]).reseal('upgrade')).unreadable).toEqual([]);
    expect((await storedHeaders(one.id)).Authorization).toMatch(new RegExp(`^v2:${new AesGcmSecretBox(oldKey).keyId}:`));
    expect((await storeWith(oldKey).find(owner, SERVERS, one.id))!.data.headers).toEqual({ Authorization: value });
    // Bound now: moved to the owner's other record, it no longer opens there.
    await db.dataSource.query(`UPDATE resource_records SET data = jsonb_set(data, '{headers}', $2::jsonb) WHERE id = $1`, [
      two.id,
      JSON.stringify(await storedHeaders(one.id)),
    ]);
    expect(await storeWith(newKey, [oldKey]).find(owner, SERVERS, two.id)).toMatchObject({
      unreadableSecrets: true,
      data: { name: 'two' },
    });
    await db.dataSource.query('DELETE FROM resource_records WHERE id = ANY($1)', [[one.id, two.id]]);
  });

  it('are re-encrypted under the new key on rotation, after which the old key alone reads nothing', async () => {
    const [owner, value] = [randomUUID(), secret()];
    const server = await storeWith(oldKey).create(owner, SERVERS, { name: 'rotated', headers: { Authorization: value } });
    expect((await resealer(newKey, [oldKey]).reseal('all')).changed).toBeGreaterThanOrEqual(1);
    const { keyId } = new AesGcmSecretBox(newKey);
    expect((await storedHeaders(server.id)).Authorization).toMatch(new RegExp(`^v2:${keyId}:`));
    expect((await storeWith(newKey).find(owner, SERVERS, server.id))!.data.headers).toEqual({ Authorization: value });
    expect((await storeWith(oldKey).find(owner, SERVERS, server.id))!.unreadableSecrets).toBe(true);
    expect(await resealer(newKey, [oldKey]).reseal('all')).toEqual({ changed: 0, unreadable: [] });
  });

  it('are rotated by npm run secrets:rotate (the compiled script) with the keys from the environment', async () => {
    const [owner, value] = [randomUUID(), secret()];
    const [from, to] = [randomBytes(32), randomBytes(32)];
    const server = await storeWith(from).create(owner, SERVERS, { name: 'scripted', headers: { Authorization: value } });
    const env = cleanEnv({
      DATABASE_URL: db.url,
      SECRETS_KEY: to.toString('base64'),
      SECRETS_KEY_PREVIOUS: [oldKey, newKey, from].map((k) => k.toString('base64')).join(','),
    });
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'dist', 'scripts', 'secrets-rotate.js')], {
      env,
      cwd: ROOT,
    });
    expect(stdout).toMatch(
      new RegExp(`re-encrypted the secrets of \\d+ records; every stored secret is now under key ${new AesGcmSecretBox(to).keyId}`),
    );
    expect((await storeWith(to).find(owner, SERVERS, server.id))!.data.headers).toEqual({ Authorization: value });
    expect(stdout + (await tablesContaining(db.dataSource, value)).join()).not.toContain(value);
  });

  it('are rotated by secrets:rotate around a record that does not decrypt, which it names (no value) before exiting 1', async () => {
    const [owner, lostValue, movedValue, goodValue] = [randomUUID(), secret(), secret(), secret()];
    const [from, to] = [randomBytes(32), randomBytes(32)];
    const lost = await storeWith(randomBytes(32)).create(randomUUID(), SERVERS, { name: 'lost', headers: { Authorization: lostValue } });
    const source = await storeWith(from).create(owner, SERVERS, { name: 'source', headers: { Authorization: movedValue } });
    const moved = await storeWith(from).create(owner, SERVERS, { name: 'moved', headers: { Authorization: secret() } });
    const good = await storeWith(from).create(owner, SERVERS, { name: 'good', headers: { Authorization: goodValue } });
    await db.dataSource.query(`UPDATE resource_records SET data = jsonb_set(data, '{headers}', $2::jsonb) WHERE id = $1`, [
      moved.id,
      JSON.stringify(await storedHeaders(source.id)),
    ]);
    const env = cleanEnv({
      DATABASE_URL: db.url,
      SECRETS_KEY: to.toString('base64'),
      SECRETS_KEY_PREVIOUS: [oldKey, newKey, from].map((k) => k.toString('base64')).join(','),
    });
    try {
      const run = promisify(execFile)(process.execPath, [path.join(ROOT, 'dist', 'scripts', 'secrets-rotate.js')], { env, cwd: ROOT });
      const failed = await run.then(
        () => null,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      // Earlier tests' records are under keys this run is not given: they are named too.
      expect(failed).toMatchObject({
        code: 1,
        stdout: expect.stringMatching(
          /re-encrypted the secrets of \d+ records under key [0-9a-f]{8}; \d+ could not be read and are left as they are/,
        ),
      });
      expect(failed!.stderr).toMatch(
        new RegExp(`MCP server ${lost.id} not rotated: A stored secret is under key [0-9a-f]{8}, which is neither`),
      );
      expect(failed!.stderr).toMatch(new RegExp(`MCP server ${moved.id} not rotated: .*failed authentication`));
      for (const value of [lostValue, movedValue, goodValue]) expect(failed!.stdout + failed!.stderr).not.toContain(value.slice(7));
      const { keyId } = new AesGcmSecretBox(to);
      for (const id of [source.id, good.id]) expect((await storedHeaders(id)).Authorization).toMatch(new RegExp(`^v2:${keyId}:`));
      expect((await storeWith(to).find(owner, SERVERS, good.id))!.data.headers).toEqual({ Authorization: goodValue });
    } finally {
      await db.dataSource.query('DELETE FROM resource_records WHERE id = ANY($1)', [[lost.id, source.id, moved.id, good.id]]);
    }
  });
});
