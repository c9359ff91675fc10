import { execFile, execFileSync, ExecFileSyncOptions } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './nginx';

/** Where Debian's postgresql-<n> package puts the server programs; the newest version wins. */
export function debianPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  const needed = ['initdb', 'pg_ctl', 'postgres', 'pg_basebackup'];
  return versions.map((v) => path.join(root, v, 'bin')).find((bin) => needed.every((p) => existsSync(path.join(bin, p))));
}

const STANDBY_NAME = 'keygate_standby';

export interface ReplicatedPostgres {
  primaryPort: number;
  standbyPort: number;
  /** A superuser URL of the server that is primary now (`database` in the path). */
  urlOf(port: number, database?: string): string;
  /** Stops the primary hard, as a crash would (pg_ctl -m immediate: no shutdown checkpoint, connections cut). */
  killPrimary(): Promise<void>;
  /** Makes the standby the primary; resolves once it accepts writes. */
  promoteStandby(): Promise<void>;
  stop(): void;
}

/**
 * A primary and a streaming standby from Debian's server binaries, in a
 * temporary directory on free ports: a physical replication slot, and
 * synchronous replication naming the standby, so that every commit answered to
 * a client is on the standby before the answer (what makes "no answered write
 * lost" hold across a promotion). Trust authentication on loopback: a test
 * cluster that lives as long as one test file.
 */
export async function startReplicatedPostgres(bin: string): Promise<ReplicatedPostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keygate-failover-'));
  chmodSync(dir, 0o755);
  const runAs = process.getuid?.() === 0 ? postgresUser() : undefined;
  const run = (program: string, args: string[], options: ExecFileSyncOptions = {}) =>
    execFileSync(path.join(bin, program), args, { ...runAs, cwd: dir, stdio: 'pipe', ...options });
  // While the test's traffic runs, nothing may block its event loop.
  const runAsync = async (program: string, args: string[]) =>
    void (await promisify(execFile)(path.join(bin, program), args, { ...runAs, cwd: dir }));
  const primary = path.join(dir, 'primary');
  const standby = path.join(dir, 'standby');
  for (const data of [primary, standby]) {
    mkdirSync(data, { mode: 0o700 });
    if (runAs) chownSync(data, runAs.uid, runAs.gid);
  }
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  run('initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-instructions']);
  appendFileSync(
    path.join(primary, 'postgresql.conf'),
    [
      `port = ${primaryPort}`,
      "listen_addresses = '127.0.0.1'",
      "unix_socket_directories = ''",
      'max_connections = 200',
      'wal_level = replica',
      'max_wal_senders = 5',
      'max_replication_slots = 5',
      'hot_standby = on',
      `synchronous_standby_names = '${STANDBY_NAME}'`,
      'synchronous_commit = on',
      '',
    ].join('\n'),
  );
  const start = (data: string) => run('pg_ctl', ['-D', data, '-l', path.join(data, 'server.log'), '-w', '-t', '60', 'start']);
  start(primary);
  const urlOf = (port: number, database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  await query(urlOf(primaryPort), `SELECT pg_create_physical_replication_slot('${STANDBY_NAME}')`);
  run('pg_basebackup', [
    '-D',
    standby,
    '-h',
    '127.0.0.1',
    '-p',
    String(primaryPort),
    '-U',
    'postgres',
    '-R',
    '-S',
    STANDBY_NAME,
    '-X',
    'stream',
  ]);
  // The standby names itself to the primary, and once promoted it has no standby of its own to wait for.
  appendFileSync(
    path.join(standby, 'postgresql.auto.conf'),
    [
      `port = ${standbyPort}`,
      "synchronous_standby_names = ''",
      `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres application_name=${STANDBY_NAME}'`,
      '',
    ].join('\n'),
  );
  start(standby);
  await until(async () => {
    const rows = await query(urlOf(primaryPort), `SELECT sync_state FROM pg_stat_replication WHERE application_name = '${STANDBY_NAME}'`);
    return rows[0]?.sync_state === 'sync';
  }, 30_000);

  const stopped = new Set<string>();
  const stop = (data: string, mode: 'immediate' | 'fast') => {
    if (stopped.has(data)) return;
    stopped.add(data);
    run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
  };
  return {
    primaryPort,
    standbyPort,
    urlOf,
    async killPrimary() {
      stopped.add(primary);
      await runAsync('pg_ctl', ['-D', primary, '-m', 'immediate', '-w', 'stop']);
    },
    async promoteStandby() {
      await runAsync('pg_ctl', ['-D', standby, '-w', '-t', '60', 'promote']);
      await until(async () => (await query(urlOf(standbyPort), 'SELECT pg_is_in_recovery() AS r'))[0]?.r === false, 30_000);
    },
    stop() {
      for (const data of [primary, standby]) {
        try {
          stop(data, 'immediate');
        } catch {
          // already down
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function query(url: string, sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function postgresUser(): { uid: number; gid: number } {
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}
