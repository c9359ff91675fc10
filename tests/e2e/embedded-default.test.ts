import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { cleanEnv, ROOT, ServiceProcess, startService, waitForListening } from '../support/service-process';

jest.setTimeout(120_000);

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'keygate-embedded-'));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its directory
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Services a test started: one a failed test left running is killed, so jest does not wait on it. */
const started: ServiceProcess[] = [];
afterEach(() => {
  for (const service of started.splice(0))
    if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
});

async function start(): Promise<ServiceProcess> {
  const service = startService({ DATA_DIR: dataDir });
  started.push(service);
  return waitForListening(service);
}

async function stop(service: ServiceProcess): Promise<void> {
  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
}

/** Where the service's own sessions with its embedded PostgreSQL come from (null: the Unix socket), read over TCP. */
async function serviceSessionAddresses(): Promise<(string | null)[]> {
  const db = path.join(dataDir, 'db');
  const password = readFileSync(path.join(db, 'pg-password'), 'utf8').trim();
  const port = readFileSync(path.join(db, 'pg', 'postmaster.pid'), 'utf8').split('\n')[3];
  const client = new Client({ host: '127.0.0.1', port: Number(port), user: 'postgres', password, database: 'postgres' });
  await client.connect();
  try {
    const { rows } = await client.query<{ addr: string | null }>(
      "SELECT client_addr::text AS addr FROM pg_stat_activity WHERE application_name = 'keygate'",
    );
    return rows.map((row) => row.addr);
  } finally {
    await client.end();
  }
}

const json = async (res: Response): Promise<{ status: number; body: any }> => ({
  status: res.status,
  body: res.status === 204 ? null : await res.json(),
});

describe('the service on its embedded database (no DATABASE_URL, no JWT_JWKS_URI)', () => {
  it('prints a working token, walks create → list → /mcp → revoke → rejected, and keeps data across restarts', async () => {
    let service = await start();
    const token = /export TOKEN=(\S+)/.exec(service.output())![1];
    const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const keys = `${service.baseUrl}/api/v1/api-keys`;

    const kept = await json(
      await fetch(keys, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'kept', scopes: ['chat:read'] }) }),
    );
    expect(kept.status).toBe(201);
    const gone = await json(await fetch(keys, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'gone' }) }));
    const listed = await json(await fetch(keys, { headers: auth }));
    expect(listed.body.map((k: { name: string }) => k.name)).toEqual(['gone', 'kept']);

    const mcp = (key: string) =>
      fetch(`${service.baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    const tools = await json(await mcp(kept.body.raw_key));
    expect(tools.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['chat']);
    // The service reaches its own database over the Unix socket, not loopback TCP.
    const addresses = await serviceSessionAddresses();
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.every((addr) => addr === null)).toBe(true);
    expect((await fetch(`${keys}/${gone.body.id}`, { method: 'DELETE', headers: auth })).status).toBe(204);
    expect((await mcp(gone.body.raw_key)).status).toBe(401);
    await stop(service);

    service = await start();
    const again = await json(await fetch(`${service.baseUrl}/api/v1/api-keys`, { headers: auth }));
    expect(again.body.map((k: { name: string }) => k.name)).toEqual(['kept']);
    expect((await fetch(`${service.baseUrl}/readyz`)).status).toBe(200);

    // A crash leaves PostgreSQL running or its postmaster.pid behind; the next start copes.
    service.child.kill('SIGKILL');
    await service.exited;
    service = await start();
    const afterCrash = await json(await fetch(`${service.baseUrl}/api/v1/api-keys`, { headers: auth }));
    expect(afterCrash.body.map((k: { name: string }) => k.name)).toEqual(['kept']);

    const sub = randomUUID();
    const minted = execFileSync(process.execPath, [path.join(ROOT, 'dist', 'scripts', 'token.js'), '--sub', sub], {
      env: cleanEnv({ DATA_DIR: dataDir }),
    })
      .toString()
      .trim();
    const mine = await fetch(`${service.baseUrl}/api/v1/api-keys`, { headers: { Authorization: `Bearer ${minted}` } });
    expect(mine.status).toBe(200);
    expect(await mine.json()).toEqual([]);
    await stop(service);
  });

  it('prints a token the service takes under a shorter JWT_MAX_LIFETIME_SECONDS, and the token script keeps to it', async () => {
    const service = await waitForListening(startService({ DATA_DIR: dataDir, JWT_MAX_LIFETIME_SECONDS: '3600' }));
    expect(service.output()).toContain('Access token, valid 1 h:');
    const token = /export TOKEN=(\S+)/.exec(service.output())![1];
    expect((await fetch(`${service.baseUrl}/api/v1/api-keys`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    const script = path.join(ROOT, 'dist', 'scripts', 'token.js');
    expect(() =>
      execFileSync(process.execPath, [script, '--ttl', '7200'], {
        env: cleanEnv({ DATA_DIR: dataDir, JWT_MAX_LIFETIME_SECONDS: '3600' }),
        stdio: 'pipe',
      }),
    ).toThrow(/JWT_MAX_LIFETIME_SECONDS/);
    await stop(service);
  });

  it('refuses to start in production without JWT_JWKS_URI', async () => {
    const service = startService({ DATA_DIR: dataDir, NODE_ENV: 'production' });
    expect(await service.exited).toBe(1);
    expect(service.output()).toMatch(/JWT_JWKS_URI is required when NODE_ENV=production/);
  });

  it('refuses to start in production with an http JWT_JWKS_URI, which whoever sits on the path could answer', async () => {
    const service = startService({
      DATA_DIR: dataDir,
      NODE_ENV: 'production',
      JWT_JWKS_URI: 'http://idp.example.test/jwks.json',
      JWT_ISSUER: 'https://idp.example.test/',
      JWT_AUDIENCE: 'keygate',
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    expect(await service.exited).not.toBe(0);
    expect(service.output()).toContain('JWT_JWKS_URI must be an https URL when NODE_ENV=production');
    expect(service.output()).not.toMatch(/listening on/);
  });

  it.each(['JWT_ISSUER', 'JWT_AUDIENCE'])('refuses to start in production without %s, naming it', async (missing) => {
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      NODE_ENV: 'production',
      JWT_JWKS_URI: 'https://idp.example.test/jwks.json',
      JWT_ISSUER: 'https://idp.example.test/',
      JWT_AUDIENCE: 'keygate',
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    };
    delete env[missing];
    const service = startService(env);
    expect(await service.exited).not.toBe(0);
    expect(service.output()).toContain(`${missing} is required when NODE_ENV=production`);
    expect(service.output()).not.toMatch(/listening on/);
  });
});
