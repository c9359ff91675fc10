import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, TestDatabase } from './test-database';
import { TEST_AUDIENCE, TEST_ISSUER, TestIdentityProvider } from './test-identity-provider';

export interface ServiceFixture {
  idp: TestIdentityProvider;
  db: TestDatabase;
  /** The environment a service process needs to run on this database and trust this identity provider. */
  env(extra?: Record<string, string>): Record<string, string>;
}

/**
 * For a test file that runs the service as a process: a migrated database, a
 * JWKS identity provider and a data directory of its own, made before all
 * tests and removed after them. Read the fields inside tests, not at load.
 */
export function serviceFixture(name: string): ServiceFixture {
  const fixture = {} as ServiceFixture;
  let dataDir: string;
  beforeAll(async () => {
    fixture.idp = await new TestIdentityProvider().start();
    fixture.db = await createTestDatabase();
    dataDir = mkdtempSync(path.join(os.tmpdir(), `keygate-${name}-`));
  });
  afterAll(async () => {
    await fixture.db?.drop();
    await fixture.idp?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  fixture.env = (extra = {}) => ({
    DATABASE_URL: fixture.db.url,
    JWT_JWKS_URI: fixture.idp.jwksUri,
    JWT_ISSUER: TEST_ISSUER,
    JWT_AUDIENCE: TEST_AUDIENCE,
    DATA_DIR: dataDir,
    ...extra,
  });
  return fixture;
}
