import { randomBytes } from 'node:crypto';
import { AesGcmSecretBox } from '../../../../src/adapters/crypto/aes-gcm-secret-box';
import { PostgresClientRegistrationStore } from '../../../../src/adapters/persistence/connections/postgres-client-registration.store';
import { ClientRegistration } from '../../../../src/application/ports/upstream-authorization.port';
import { tablesContaining } from '../../../support/plaintext-scan';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const key = randomBytes(32);
const makeSut = (k = key) => new PostgresClientRegistrationStore(db.dataSource.manager, new AesGcmSecretBox(k));
const hex = () => randomBytes(8).toString('hex');
const REDIRECT = 'https://keygate.example.com/console/connections/callback';
function registration(issuer = `https://as-${hex()}.example.com`): ClientRegistration {
  return {
    issuer,
    clientId: `client-${hex()}`,
    clientSecret: `secret-${hex()}`,
    tokenEndpointAuth: 'client_secret_basic',
    source: 'dynamic',
  };
}
const at = (iso: string) => new Date(iso);

describe('PostgresClientRegistrationStore', () => {
  it('keeps one registration per issuer and redirect URI, sealed, found while young enough', async () => {
    const sut = makeSut();
    const r = registration();
    await sut.save(r, REDIRECT, at('2026-11-27T10:00:00Z'));
    expect(await tablesContaining(db.dataSource, r.clientSecret!)).toEqual([]);
    expect(await sut.find(r.issuer, REDIRECT, at('2026-11-27T09:00:00Z'))).toEqual(r);
    expect(await sut.find(r.issuer, REDIRECT, at('2026-11-27T11:00:00Z'))).toBeNull();
    expect(await sut.find(r.issuer, 'https://other.example.com/callback', at('2026-11-27T09:00:00Z'))).toBeNull();
    const next = { ...registration(r.issuer) };
    await sut.save(next, REDIRECT, at('2026-11-27T12:00:00Z'));
    expect(await sut.find(r.issuer, REDIRECT, at('2026-11-27T09:00:00Z'))).toEqual(next);
  });

  it('forgets the one with a client id; one sealed under another key or moved to another issuer does not open', async () => {
    const sut = makeSut();
    const [r, s] = [registration(), registration()];
    await sut.save(r, REDIRECT, at('2026-11-27T10:00:00Z'));
    await sut.save(s, REDIRECT, at('2026-11-27T10:00:00Z'));
    await sut.forget(r.issuer, 'not-its-client');
    expect(await sut.find(r.issuer, REDIRECT, at('2026-11-27T09:00:00Z'))).toEqual(r);
    await sut.forget(r.issuer, r.clientId);
    expect(await sut.find(r.issuer, REDIRECT, at('2026-11-27T09:00:00Z'))).toBeNull();
    expect(await makeSut(randomBytes(32)).find(s.issuer, REDIRECT, at('2026-11-27T09:00:00Z'))).toBeNull();
    const moved = `https://moved-${hex()}.example.com`;
    await db.dataSource.query(
      `INSERT INTO mcp_client_registrations (issuer, redirect_uri, client_id, sealed_registration, created_at)
       SELECT $1, redirect_uri, client_id, sealed_registration, created_at FROM mcp_client_registrations WHERE issuer = $2`,
      [moved, s.issuer],
    );
    expect(await sut.find(moved, REDIRECT, at('2026-11-27T09:00:00Z'))).toBeNull();
  });
});
