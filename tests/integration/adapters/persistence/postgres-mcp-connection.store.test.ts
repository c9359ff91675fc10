import { randomBytes, randomUUID } from 'node:crypto';
import { AesGcmSecretBox } from '../../../../src/adapters/crypto/aes-gcm-secret-box';
import { ConnectionSecrets } from '../../../../src/adapters/persistence/connections/connection-secrets';
import { PostgresMcpConnectionStore } from '../../../../src/adapters/persistence/connections/postgres-mcp-connection.store';
import { PostgresResourceStore } from '../../../../src/adapters/persistence/postgres-resource.store';
import { RecordSecrets } from '../../../../src/adapters/persistence/record-secrets';
import { StoredSecrets } from '../../../../src/adapters/persistence/stored-secrets';
import { topLevel } from '../../../../src/domain/resource/resource-record';
import { tablesContaining } from '../../../support/plaintext-scan';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

const SERVERS = topLevel('mcp_servers');
const key = randomBytes(32);
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

function makeSut(told: string[] = []) {
  const records = new PostgresResourceStore(db.dataSource.manager);
  const sut = new PostgresMcpConnectionStore(db.dataSource.manager, new ConnectionSecrets(new AesGcmSecretBox(key)), (id, reason) =>
    told.push(`${id} ${reason}`),
  );
  const server = async (ownerId: string) =>
    (await records.create(ownerId, SERVERS, { name: `s-${randomBytes(4).toString('hex')}`, url: 'https://f.example.com/mcp' })).id;
  return { sut, records, server, told };
}
const aSecret = () => `sk-${randomBytes(12).toString('hex')}`;

describe('PostgresMcpConnectionStore', () => {
  it('stores one connection per user and server, its secret sealed; saving again replaces the secret', async () => {
    const { sut, server } = makeSut();
    const [alice, first, second] = [randomUUID(), aSecret(), aSecret()];
    const serverId = await server(alice);
    const saved = await sut.saveSecret(alice, serverId, first);
    expect(saved).toEqual({
      created: true,
      connection: expect.objectContaining({
        userId: alice,
        serverId,
        kind: 'user_secret',
        state: 'connected',
        scopes: [],
        expiresAt: null,
      }),
    });
    expect(await sut.find(alice, serverId)).toEqual(saved.connection);
    expect(JSON.stringify(await sut.find(alice, serverId))).not.toContain(first);
    expect(await sut.openSecret(alice, serverId)).toEqual({ connection: saved.connection, secret: first });
    expect(await tablesContaining(db.dataSource, first)).toEqual([]);

    const again = await sut.saveSecret(alice, serverId, second);
    expect(again.created).toBe(false);
    expect(again.connection.id).toBe(saved.connection.id);
    expect((await sut.openSecret(alice, serverId))!.secret).toBe(second);
    expect(await tablesContaining(db.dataSource, second)).toEqual([]);
  });

  it("keeps users apart: another user's connection to the same server is none of theirs", async () => {
    const { sut, server } = makeSut();
    const [alice, bob] = [randomUUID(), randomUUID()];
    const serverId = await server(alice);
    await sut.saveSecret(alice, serverId, aSecret());
    expect(await sut.find(bob, serverId)).toBeNull();
    expect(await sut.openSecret(bob, serverId)).toBeNull();
    expect(await sut.remove(bob, serverId)).toBeNull();
    expect(await sut.find(alice, serverId)).not.toBeNull();
  });

  it("does not open a sealed secret copied to another user's row or another server's, and says so without the value", async () => {
    const { sut, server, told } = makeSut();
    const [alice, mallory, secret] = [randomUUID(), randomUUID(), aSecret()];
    const [serverId, otherServer] = [await server(alice), await server(alice)];
    await sut.saveSecret(alice, serverId, secret);
    const [{ sealed_secret: sealed }] = await db.dataSource.query('SELECT sealed_secret FROM mcp_connections WHERE user_id = $1', [alice]);
    await db.dataSource.query(
      `INSERT INTO mcp_connections (user_id, server_id, kind, state, sealed_secret)
       VALUES ($1, $2, 'user_secret', 'connected', $3), ($4, $5, 'user_secret', 'connected', $3)`,
      [mallory, serverId, sealed, alice, otherServer],
    );
    expect(await sut.openSecret(mallory, serverId)).toBeNull();
    expect(await sut.openSecret(alice, otherServer)).toBeNull();
    expect(told).toHaveLength(2);
    expect(told.join('\n')).not.toContain(secret);
  });

  it('forgets a connection on remove, and a server record takes its connections with it', async () => {
    const { sut, records, server } = makeSut();
    const alice = randomUUID();
    const [kept, deleted] = [await server(alice), await server(alice)];
    await sut.saveSecret(alice, kept, aSecret());
    await sut.saveSecret(alice, deleted, aSecret());
    expect(await sut.remove(alice, kept)).toEqual(expect.objectContaining({ serverId: kept, kind: 'user_secret' }));
    expect(await sut.remove(alice, kept)).toBeNull();
    await records.remove(alice, SERVERS, deleted);
    expect(await db.dataSource.query('SELECT id FROM mcp_connections WHERE user_id = $1', [alice])).toEqual([]);
    const [bob, moved] = [randomUUID(), await server(alice)];
    await sut.saveSecret(alice, moved, aSecret());
    await sut.saveSecret(bob, moved, aSecret());
    expect((await sut.removeAllOf(moved)).map((c) => c.userId).sort()).toEqual([alice, bob].sort());
    expect(await sut.find(bob, moved)).toBeNull();
  });
});

describe('connection secrets on rotation (npm run secrets:rotate)', () => {
  it('move to the new key with the records, after which the old key alone reads nothing; one that does not open is named', async () => {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const storeWith = (current: Buffer, previous: Buffer[] = []) =>
      new PostgresMcpConnectionStore(db.dataSource.manager, new ConnectionSecrets(new AesGcmSecretBox(current, previous)));
    const { server } = makeSut();
    const [alice, secret] = [randomUUID(), aSecret()];
    const serverId = await server(alice);
    await storeWith(oldKey).saveSecret(alice, serverId, secret);
    const lost = await server(alice);
    await storeWith(randomBytes(32)).saveSecret(alice, lost, aSecret());

    const report = await new StoredSecrets(db.dataSource, new RecordSecrets(new AesGcmSecretBox(newKey, [oldKey]))).reseal('all');
    expect(report.changed).toBeGreaterThanOrEqual(1);
    const [{ id: lostId }] = await db.dataSource.query('SELECT id FROM mcp_connections WHERE server_id = $1', [lost]);
    expect(report.unreadable).toContainEqual({ id: `connection ${lostId}`, reason: expect.stringMatching(/neither/) });
    expect((await storeWith(newKey).openSecret(alice, serverId))!.secret).toBe(secret);
    expect(await storeWith(oldKey).openSecret(alice, serverId)).toBeNull();
  });
});
