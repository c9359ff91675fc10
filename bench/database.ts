import { chmodSync, mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { LocalPostgres } from '../src/infrastructure/database/local-postgres';

/** A new, empty database beside the admin one (the service migrates it at start). */
export async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

export interface BenchPlace {
  /** The database the services under test run on. */
  url: string;
  /** Their DATA_DIR, where the development issuer's key lives. */
  dataDir: string;
  /** The environment every service of the run starts with. */
  env: NodeJS.ProcessEnv;
  /** Stops the throwaway PostgreSQL and removes the scratch directory. */
  remove: () => Promise<void>;
}

/**
 * A scratch directory, a throwaway PostgreSQL in it (or BENCH_DATABASE_URL's
 * server) with a fresh database `name`, and the environment the services
 * under test start with.
 */
export async function benchPlace(name: string, logLevel: string): Promise<BenchPlace> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), `${name.replace(/_/g, '-')}-`));
  chmodSync(scratch, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its directory
  const pg = process.env.BENCH_DATABASE_URL ? null : await LocalPostgres.start({ dir: path.join(scratch, 'pg'), throwaway: true });
  const url = process.env.BENCH_DATABASE_URL ?? (await freshDatabase(pg!.localUrl, name));
  const dataDir = path.join(scratch, 'data');
  mkdirSync(dataDir);
  const env = {
    ...process.env,
    DATABASE_URL: url,
    DATA_DIR: dataDir,
    PORT: '0',
    NODE_ENV: 'development',
    LOG_LEVEL: logLevel,
    AUTH_FAILURE_LIMIT: '1000000',
  };
  return {
    url,
    dataDir,
    env,
    async remove() {
      await pg?.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
