import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Express } from 'express';
import { Container } from 'inversify';
import { loadConfig } from '../../src/infrastructure/config/config';
import { createDataSource } from '../../src/infrastructure/database/data-source';
import { buildContainer } from '../../src/infrastructure/di/container';
import { Lifecycle } from '../../src/infrastructure/di/lifecycle';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { checkedApp } from './openapi-drift';
import { startTestApp, TestApp } from './test-app';
import { TEST_AUDIENCE, TEST_ISSUER } from './test-identity-provider';
import { listenLoopback } from './listen-loopback';

export interface Served {
  /** Base URL, no path. */
  url: string;
  close(): Promise<void>;
}

export interface AppReplica extends Served {
  container: Container;
}

export interface TwoReplicas {
  /** The first replica, with the REST API and its database (`a.db`). */
  a: TestApp;
  aUrl: string;
  b: AppReplica;
  close(): Promise<void>;
}

/** An app on a loopback port of its own, so requests to it run concurrently and streams stay open. */
export async function serve(app: Express): Promise<Served> {
  const server = http.createServer(app);
  const { url, close } = await listenLoopback(server);
  return { url, close };
}

/** A second whole app (own pool, caches, listener, streams) on the first one's database, with the same settings. */
export async function secondReplica(first: TestApp, env: Record<string, string> = {}): Promise<AppReplica> {
  const dataSource = createDataSource({ url: first.db.url, poolSize: 5 });
  await dataSource.initialize();
  const config = loadConfig({
    NODE_ENV: 'test',
    JWT_JWKS_URI: first.idp.jwksUri,
    JWT_ISSUER: TEST_ISSUER,
    JWT_AUDIENCE: TEST_AUDIENCE,
    DATABASE_URL: first.db.url,
    SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    ...env,
  });
  const logger = createLogger('silent');
  const container = buildContainer({ config, database: { dataSource, close: () => dataSource.destroy() }, logger });
  const lifecycle = container.get(Lifecycle);
  await lifecycle.start();
  const served = await serve(checkedApp(container, { logger }));
  return {
    ...served,
    container,
    close: async () => {
      await served.close();
      await lifecycle.stop();
    },
  };
}

/** Two replicas of the whole app on one PostgreSQL database, both with `env` and, as a deployment's replicas, one SECRETS_KEY. */
export async function startTwoReplicas(given: Record<string, string> = {}): Promise<TwoReplicas> {
  const env = { SECRETS_KEY: randomBytes(32).toString('base64'), ...given };
  const a = await startTestApp(env);
  const aServed = await serve(a.app);
  const b = await secondReplica(a, env);
  return {
    a,
    aUrl: aServed.url,
    b,
    async close() {
      await b.close();
      await aServed.close();
      await a.close();
    },
  };
}
