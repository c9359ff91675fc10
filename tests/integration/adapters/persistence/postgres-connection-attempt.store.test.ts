import { randomBytes, randomUUID } from 'node:crypto';
import { AesGcmSecretBox } from '../../../../src/adapters/crypto/aes-gcm-secret-box';
import { PostgresConnectionAttemptStore } from '../../../../src/adapters/persistence/connections/postgres-connection-attempt.store';
import { PostgresResourceStore } from '../../../../src/adapters/persistence/postgres-resource.store';
import { PendingAuthorization } from '../../../../src/application/ports/upstream-authorization.port';
import { topLevel } from '../../../../src/domain/resource/resource-record';
import { tablesContaining } from '../../../support/plaintext-scan';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

const SERVERS = topLevel('mcp_servers');
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

function makeSut(key = randomBytes(32)) {
  const records = new PostgresResourceStore(db.dataSource.manager);
  const sut = new PostgresConnectionAttemptStore(db.dataSource.manager, new AesGcmSecretBox(key));
  const server = async (ownerId: string) =>
    (await records.create(ownerId, SERVERS, { name: `s-${randomBytes(4).toString('hex')}`, url: 'https://f.example.com/mcp' })).id;
  return { sut, records, server };
}
const hex = () => randomBytes(16).toString('hex');
function pending(): PendingAuthorization {
  const as = {
    issuer: 'https://as.example.com',
    authorizationEndpoint: 'https://as.example.com/auth',
    tokenEndpoint: 'https://as.example.com/token',
    clientIdMetadataDocumentSupported: false,
    issParameterSupported: true,
  };
  return {
    authorizationUrl: 'https://as.example.com/auth?x=1',
    state: `state-${hex()}`,
    codeVerifier: `verifier-${hex()}`,
    redirectUri: 'https://keygate.example.com/callback',
    resource: 'https://f.example.com/mcp',
    scopes: ['mcp:tools'],
    client: {
      issuer: as.issuer,
      clientId: 'c',
      clientSecret: `client-secret-${hex()}`,
      tokenEndpointAuth: 'client_secret_basic',
      source: 'dynamic',
    },
    authorizationServer: as,
  };
}
const later = (ms: number) => new Date(Date.now() + ms);

describe('PostgresConnectionAttemptStore', () => {
  it('keeps an attempt under its state, sealed, and gives it back once', async () => {
    const { sut, server } = makeSut();
    const user = randomUUID();
    const serverId = await server(user);
    const p = pending();
    await sut.save({ userId: user, serverId, pending: p, expiresAt: later(600_000) });
    for (const value of [p.state, p.codeVerifier, p.client.clientSecret!]) expect(await tablesContaining(db.dataSource, value)).toEqual([]);
    expect(await sut.take(p.state, user, new Date())).toEqual({ userId: user, serverId, pending: p, expiresAt: expect.any(Date) });
    expect(await sut.take(p.state, user, new Date())).toBeNull();
  });

  it("gives an attempt to the user who started it only, and another user's try does not use it up", async () => {
    const { sut, server } = makeSut();
    const [user, other] = [randomUUID(), randomUUID()];
    const serverId = await server(user);
    const p = pending();
    await sut.save({ userId: user, serverId, pending: p, expiresAt: later(600_000) });
    expect(await sut.take(p.state, other, new Date())).toBeNull();
    expect(await sut.take(p.state, user, new Date())).toMatchObject({ userId: user, serverId });
  });

  it('gives nothing for an unknown or expired state, and the expired one stays unusable', async () => {
    const { sut, server } = makeSut();
    const user = randomUUID();
    const serverId = await server(user);
    const p = pending();
    await sut.save({ userId: user, serverId, pending: p, expiresAt: later(60_000) });
    expect(await sut.take(`state-${hex()}`, user, new Date())).toBeNull();
    expect(await sut.take(p.state, user, later(120_000))).toBeNull();
  });

  it('does not open an attempt sealed under another key, and goes with its server', async () => {
    const first = makeSut();
    const user = randomUUID();
    const serverId = await first.server(user);
    const [p, q] = [pending(), pending()];
    await first.sut.save({ userId: user, serverId, pending: p, expiresAt: later(600_000) });
    expect(await makeSut().sut.take(p.state, user, new Date())).toBeNull();
    await first.sut.save({ userId: user, serverId, pending: q, expiresAt: later(600_000) });
    await first.records.remove(user, SERVERS, serverId);
    expect(await first.sut.take(q.state, user, new Date())).toBeNull();
  });
});
