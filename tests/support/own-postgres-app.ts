import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalPostgres } from '../../src/infrastructure/database/local-postgres';
import { startTestApp, TestApp } from './test-app';

export interface OwnPostgresApp {
  t: TestApp;
  /** Stops the server under the running app. */
  stopDatabase(): Promise<void>;
  /** Starts it again on the same port and data. */
  startDatabase(): Promise<void>;
}

/**
 * The test app on a PostgreSQL server of the file's own, for tests that stop
 * and restart the database under it; made before all tests, removed after.
 * Read `t` inside tests, not at load.
 */
export function appOnOwnPostgres(name: string, env: Record<string, string> = {}): OwnPostgresApp {
  const fixture = {} as OwnPostgresApp;
  const sharedUrl = process.env.TEST_DATABASE_URL;
  let dir: string;
  let server: LocalPostgres;
  let port: number;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), `keygate-${name}-`));
    server = await LocalPostgres.start({ dir, throwaway: false });
    port = Number(new URL(server.url).port);
    process.env.TEST_DATABASE_URL = server.url;
    fixture.t = await startTestApp(env);
  });
  afterAll(async () => {
    await fixture.t?.close().catch(() => undefined);
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    process.env.TEST_DATABASE_URL = sharedUrl;
  });
  fixture.stopDatabase = () => server.stop();
  fixture.startDatabase = async () => {
    server = await LocalPostgres.start({ dir, port, throwaway: false });
  };
  return fixture;
}
