import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalPostgres } from '../../src/infrastructure/database/local-postgres';
import { buildService } from './service-process';

/**
 * Gives every test worker a PostgreSQL server: TEST_DATABASE_URL when set,
 * otherwise a throwaway one started here and removed in global-teardown.
 */
export default async function globalSetup(): Promise<void> {
  // Process-level tests start the compiled service; build it once, before any worker runs.
  buildService();
  if (process.env.TEST_DATABASE_URL) return;
  const server = await LocalPostgres.start({ dir: mkdtempSync(path.join(os.tmpdir(), 'keygate-test-')), throwaway: true });
  process.env.TEST_DATABASE_URL = server.url;
  (globalThis as { __KEYGATE_PG__?: LocalPostgres }).__KEYGATE_PG__ = server;
}
