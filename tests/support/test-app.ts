import { randomBytes, randomUUID } from 'node:crypto';
import { Express } from 'express';
import { Container } from 'inversify';
import { Clock } from '../../src/application/ports/clock.port';
import { loadConfig } from '../../src/infrastructure/config/config';
import { buildContainer } from '../../src/infrastructure/di/container';
import { Lifecycle } from '../../src/infrastructure/di/lifecycle';
import { hotPathOf, HotPathParts } from './hot-path-parts';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { AppExtras } from '../../src/infrastructure/server/app';
import { checkedApp } from './openapi-drift';
import { createTestDatabase, TestDatabase } from './test-database';
import { TEST_AUDIENCE, TEST_ISSUER, TestIdentityProvider, TokenOptions } from './test-identity-provider';

export interface TestApp {
  app: Express;
  container: Container;
  db: TestDatabase;
  idp: TestIdentityProvider;
  /** A token for a fresh (or the given) non-admin user. */
  userToken(sub?: string, options?: TokenOptions): string;
  adminToken(sub?: string): string;
  hotPath: HotPathParts;
  /** Writes coalesced last_used_at values now instead of at the next tick. */
  flushLastUsed(): Promise<void>;
  close(): Promise<void>;
}

/** The whole app on its own migrated database, trusting a real JWKS served over HTTP. */
/** Logs are silent unless `extras.logger` captures them. */
export async function startTestApp(env: Record<string, string> = {}, clock?: Clock, extras: AppExtras = {}): Promise<TestApp> {
  const idp = await new TestIdentityProvider().start();
  const db = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    JWT_JWKS_URI: idp.jwksUri,
    JWT_ISSUER: TEST_ISSUER,
    JWT_AUDIENCE: TEST_AUDIENCE,
    DATABASE_URL: db.url,
    // A key of its own per app, so tests leave no key file behind.
    SECRETS_KEY: randomBytes(32).toString('base64'),
    ...env,
  });
  const logger = extras.logger ?? createLogger('silent');
  const container = buildContainer({ config, database: { dataSource: db.dataSource, close: () => db.drop() }, clock, logger });
  const lifecycle = container.get(Lifecycle);
  await lifecycle.start();
  const hotPath = hotPathOf(container);
  const app = checkedApp(container, { ...extras, logger });
  return {
    app,
    container,
    db,
    idp,
    userToken: (sub = randomUUID(), options = {}) => idp.token({ sub, ...options }),
    adminToken: (sub = randomUUID()) => idp.token({ sub, roles: ['admin'] }),
    hotPath,
    flushLastUsed: () => hotPath.lastUsed.flush(),
    async close() {
      try {
        await lifecycle.stop(); // the listener, the last last_used_at batch, then the database is dropped
      } finally {
        await idp.stop();
      }
    },
  };
}
