import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '../../../src/infrastructure/config/config';
import { openDatabase } from '../../../src/infrastructure/database/database';
import { LocalPostgres } from '../../../src/infrastructure/database/local-postgres';
import { freePort } from '../../support/nginx';

jest.setTimeout(120_000);

/** The address PostgreSQL sees the session come from: null over a Unix socket. */
async function clientAddress(url: string): Promise<string | null> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ addr: string | null }>('SELECT inet_client_addr()::text AS addr')).rows[0].addr;
  } finally {
    await client.end();
  }
}

function scratch(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  chmodSync(dir, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its directory
  return dir;
}

describe('the embedded PostgreSQL', () => {
  let dir: string;
  let server: LocalPostgres;
  beforeAll(async () => {
    dir = scratch('keygate-local-pg-');
    server = await LocalPostgres.start({ dir, throwaway: true });
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is reached over its Unix socket by localUrl and over loopback TCP by url', async () => {
    expect(server.localUrl).not.toBe(server.url);
    expect(await clientAddress(server.localUrl)).toBeNull();
    expect(await clientAddress(server.url)).toBe('127.0.0.1/32');
  });

  it("keeps its socket in a directory only the server's user may open", () => {
    expect(statSync(path.join(dir, 'socket')).mode & 0o777).toBe(0o700);
  });

  it('still asks for the password over the socket', async () => {
    const wrong = new URL(server.localUrl);
    wrong.password = 'not-the-password';
    await expect(clientAddress(wrong.toString())).rejects.toThrow(/password authentication failed/);
  });
});

describe('the embedded PostgreSQL where its socket cannot be made', () => {
  it('starts again on loopback TCP alone, and localUrl is url', async () => {
    const dir = scratch('keygate-local-pg-');
    const port = await freePort();
    // A directory where the socket file goes: PostgreSQL can neither remove it nor bind there, as on a file system without sockets.
    mkdirSync(path.join(dir, 'socket', `.s.PGSQL.${port}`), { recursive: true });
    const lines: string[] = [];
    try {
      const server = await LocalPostgres.start({ dir, port, throwaway: true, notice: (line) => lines.push(line) });
      try {
        expect(server.localUrl).toBe(server.url);
        expect(await clientAddress(server.localUrl)).toBe('127.0.0.1/32');
        expect(lines.join('\n')).toContain('it listens on 127.0.0.1 alone');
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the embedded PostgreSQL under a directory too deep for a socket path', () => {
  it('listens on loopback TCP alone, and localUrl is url', async () => {
    const root = scratch('keygate-local-pg-');
    const dir = path.join(root, 'd'.repeat(100));
    try {
      const lines: string[] = [];
      const server = await LocalPostgres.start({ dir, throwaway: true, notice: (line) => lines.push(line) });
      try {
        expect(server.localUrl).toBe(server.url);
        expect(await clientAddress(server.localUrl)).toBe('127.0.0.1/32');
        expect(lines).toEqual([
          `PostgreSQL's socket cannot go under ${dir} (its path is too long or needs quoting); it listens on 127.0.0.1 alone`,
        ]);
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the service on its embedded PostgreSQL, where the socket cannot be had', () => {
  it('says in its log that the database listens on loopback TCP alone', async () => {
    const root = scratch('keygate-local-pg-');
    const dataDir = path.join(root, 'd'.repeat(100));
    const lines: string[] = [];
    try {
      const database = await openDatabase(loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir }), (line) => lines.push(line));
      await database.close();
      expect(lines).toContain(
        `PostgreSQL's socket cannot go under ${path.join(dataDir, 'db')} (its path is too long or needs quoting); it listens on 127.0.0.1 alone`,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
