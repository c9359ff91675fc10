import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { MIGRATIONS } from '../../../src/infrastructure/database/migrations';
import { cleanEnv } from '../../support/service-process';
import { withDatabase } from '../../support/test-database';

const ROOT = path.join(__dirname, '..', '..', '..');
// The global setup has built dist/: this is what the image's migration job runs (node dist/scripts/migrate.js).
const SCRIPT = path.join(ROOT, 'dist', 'scripts', 'migrate.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function migrate(env: Record<string, string>): Promise<Run> {
  return promisify(execFile)(process.execPath, [SCRIPT], { env: cleanEnv(env), cwd: ROOT }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: Run) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('npm run migrate (scripts/migrate.ts, the Kubernetes migration job)', () => {
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const name = `keygate_test_${randomBytes(6).toString('hex')}`;
  const url = withDatabase(adminUrl, name);

  beforeAll(() => query(adminUrl, `CREATE DATABASE ${name}`));
  afterAll(() => query(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));

  it('migrates an empty database from three processes at once, each migration applied once, and exits 0', async () => {
    const runs = await Promise.all([1, 2, 3].map(() => migrate({ DATABASE_URL: url, NODE_ENV: 'production' })));
    expect(runs.map((run) => run.code)).toEqual([0, 0, 0]);
    const applied = runs.map((run) => Number(/migrations applied: (\d+)/.exec(run.stdout)?.[1]));
    expect(applied.sort((a, b) => a - b)).toEqual([0, 0, MIGRATIONS.length]);
    const rows = await query<{ name: string }>(url, 'SELECT name FROM migrations');
    expect(rows).toHaveLength(MIGRATIONS.length);
    expect(new Set(rows.map((row) => row.name)).size).toBe(MIGRATIONS.length);
    expect(await query(url, `SELECT 1 FROM information_schema.tables WHERE table_name = 'api_keys'`)).toHaveLength(1);
  });

  it('applies nothing to a current schema', async () => {
    const run = await migrate({ DATABASE_URL: url });
    expect(run).toMatchObject({ code: 0, stdout: 'migrations applied: 0; the schema is current\n' });
  });

  it('exits 1 without DATABASE_URL (it never starts an embedded database), and without printing the URL when it cannot connect', async () => {
    expect(await migrate({})).toMatchObject({ code: 1, stderr: expect.stringContaining('DATABASE_URL is required') });
    const secret = randomBytes(12).toString('hex');
    const unreachable = await migrate({ DATABASE_URL: `postgres://keygate:${secret}@127.0.0.1:1/keygate` });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^migrate failed: /);
    expect(unreachable.stdout + unreachable.stderr).not.toContain(secret);
  });
});
