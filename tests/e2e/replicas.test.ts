import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../support/replica';
import { ServiceProcess, startService, waitForListening } from '../support/service-process';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { testCa } from '../support/local-ca';
import { TEST_AUDIENCE, TEST_ISSUER, TestIdentityProvider } from '../support/test-identity-provider';

jest.setTimeout(120_000);

let idp: TestIdentityProvider;
let db: TestDatabase;
let dataDir: string;
let replicas: ServiceProcess[] = [];

beforeAll(async () => {
  // https: production refuses an http JWKS; the service trusts the test certificate.
  idp = await new TestIdentityProvider().start({ https: true });
  db = await createTestDatabase();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'keygate-replicas-'));
  const env = {
    DATABASE_URL: db.url,
    JWT_JWKS_URI: idp.jwksUri,
    JWT_ISSUER: TEST_ISSUER,
    JWT_AUDIENCE: TEST_AUDIENCE,
    DATA_DIR: dataDir,
    NODE_ENV: 'production',
    NODE_EXTRA_CA_CERTS: (await testCa()).caFile,
    LOG_LEVEL: 'warn',
    SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
  };
  replicas = await Promise.all([startService(env), startService(env)].map((s) => waitForListening(s)));
});
afterAll(async () => {
  for (const r of replicas) {
    r.child.kill('SIGTERM');
    await r.exited;
  }
  await db.drop();
  await idp.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface CreatedKey {
  id: string;
  raw_key: string;
}

interface ToolsList {
  result: { tools: { name: string }[] };
}

const toolsList = (replica: ServiceProcess, key: string) =>
  fetch(`${replica.baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });

describe('two replicas on one PostgreSQL', () => {
  it('rejects on one replica, within 100 ms, a key revoked through the other', async () => {
    const [a, b] = replicas;
    const auth = { Authorization: `Bearer ${idp.token({ sub: crypto.randomUUID() })}`, 'Content-Type': 'application/json' };
    const created = (await (
      await fetch(`${a.baseUrl}/api/v1/api-keys`, { method: 'POST', headers: auth, body: '{"name":"shared"}' })
    ).json()) as CreatedKey;
    expect((await toolsList(b, created.raw_key)).status).toBe(200); // b has it cached now
    expect((await toolsList(b, created.raw_key)).status).toBe(200);

    const revoked = await fetch(`${a.baseUrl}/api/v1/api-keys/${created.id}`, { method: 'DELETE', headers: auth });
    expect(revoked.status).toBe(204);
    const elapsed = await eventually(async () => (await toolsList(b, created.raw_key)).status === 401, 100, 1);
    expect(elapsed).toBeLessThanOrEqual(100);
    expect((await toolsList(a, created.raw_key)).status).toBe(401);
  });

  it('narrows, within 100 ms, the tools a replica that cached the key offers after its scopes change in SQL', async () => {
    const [a, b] = replicas;
    const auth = { Authorization: `Bearer ${idp.token({ sub: crypto.randomUUID() })}`, 'Content-Type': 'application/json' };
    const created = (await (
      await fetch(`${a.baseUrl}/api/v1/api-keys`, { method: 'POST', headers: auth, body: '{"name":"narrowed"}' })
    ).json()) as CreatedKey;
    const toolNames = async () => ((await (await toolsList(b, created.raw_key)).json()) as ToolsList).result.tools.map((t) => t.name);
    expect((await toolNames()).length).toBeGreaterThan(1); // b has it cached now, with full access
    expect(await toolNames()).toContain('projects');

    await db.dataSource.query(`UPDATE api_keys SET scopes = '{chat:read}' WHERE id = $1`, [created.id]);
    const elapsed = await eventually(async () => (await toolNames()).join() === 'chat', 100, 1);
    expect(elapsed).toBeLessThanOrEqual(100);
  });

  it('rejects on a replica that cached the key, within 100 ms, a key whose expiry was moved into the past in SQL', async () => {
    const [a, b] = replicas;
    const auth = { Authorization: `Bearer ${idp.token({ sub: crypto.randomUUID() })}`, 'Content-Type': 'application/json' };
    const created = (await (
      await fetch(`${a.baseUrl}/api/v1/api-keys`, { method: 'POST', headers: auth, body: '{"name":"expiring"}' })
    ).json()) as CreatedKey;
    expect((await toolsList(b, created.raw_key)).status).toBe(200);

    await db.dataSource.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [created.id]);
    const elapsed = await eventually(async () => (await toolsList(b, created.raw_key)).status === 401, 100, 1);
    expect(elapsed).toBeLessThanOrEqual(100);
  });

  it('rolls a key with no overlap: within 100 ms the old key is refused on the other replica, the new one works', async () => {
    const [a, b] = replicas;
    const auth = { Authorization: `Bearer ${idp.token({ sub: crypto.randomUUID() })}`, 'Content-Type': 'application/json' };
    const old = (await (
      await fetch(`${a.baseUrl}/api/v1/api-keys`, { method: 'POST', headers: auth, body: '{"name":"rolled"}' })
    ).json()) as CreatedKey;
    expect((await toolsList(b, old.raw_key)).status).toBe(200); // b has it cached now

    const rolled = await fetch(`${a.baseUrl}/api/v1/api-keys/${old.id}/roll`, { method: 'POST', headers: auth, body: '{}' });
    expect(rolled.status).toBe(201);
    const fresh = (await rolled.json()) as CreatedKey;
    const elapsed = await eventually(async () => (await toolsList(b, old.raw_key)).status === 401, 100, 1);
    expect(elapsed).toBeLessThanOrEqual(100);
    expect((await toolsList(b, fresh.raw_key)).status).toBe(200);
    expect((await toolsList(a, old.raw_key)).status).toBe(401);
  });

  it('rolls a key with an overlap: both keys work on both replicas until it ends, then the old one is refused on both', async () => {
    const [a, b] = replicas;
    const auth = { Authorization: `Bearer ${idp.token({ sub: crypto.randomUUID() })}`, 'Content-Type': 'application/json' };
    const old = (await (
      await fetch(`${a.baseUrl}/api/v1/api-keys`, { method: 'POST', headers: auth, body: '{"name":"overlap"}' })
    ).json()) as CreatedKey;
    expect((await toolsList(b, old.raw_key)).status).toBe(200);

    const rolled = await fetch(`${a.baseUrl}/api/v1/api-keys/${old.id}/roll`, {
      method: 'POST',
      headers: auth,
      body: '{"grace_seconds":2}',
    });
    expect(rolled.status).toBe(201);
    const fresh = (await rolled.json()) as CreatedKey;
    const endsAt = Date.now() + 2000;
    for (const replica of [a, b]) {
      expect((await toolsList(replica, old.raw_key)).status).toBe(200);
      expect((await toolsList(replica, fresh.raw_key)).status).toBe(200);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, endsAt - Date.now()) + 50));
    for (const replica of [a, b]) {
      expect((await toolsList(replica, old.raw_key)).status).toBe(401);
      expect((await toolsList(replica, fresh.raw_key)).status).toBe(200);
    }
  });

  it("narrows, within 100 ms, the tools the other replica offers after PATCH changes a key's scopes", async () => {
    const [a, b] = replicas;
    const auth = { Authorization: `Bearer ${idp.token({ sub: crypto.randomUUID() })}`, 'Content-Type': 'application/json' };
    const created = (await (
      await fetch(`${a.baseUrl}/api/v1/api-keys`, { method: 'POST', headers: auth, body: '{"name":"patched"}' })
    ).json()) as CreatedKey;
    const toolNames = async () => ((await (await toolsList(b, created.raw_key)).json()) as ToolsList).result.tools.map((t) => t.name);
    expect(await toolNames()).toContain('projects');

    const patched = await fetch(`${a.baseUrl}/api/v1/api-keys/${created.id}`, {
      method: 'PATCH',
      headers: auth,
      body: '{"scopes":["chat:read"]}',
    });
    expect(patched.status).toBe(200);
    const elapsed = await eventually(async () => (await toolNames()).join() === 'chat', 100, 1);
    expect(elapsed).toBeLessThanOrEqual(100);
  });

  it('never moves last_used_at backwards while both replicas use a key', async () => {
    const [a, b] = replicas;
    const auth = { Authorization: `Bearer ${idp.token({ sub: crypto.randomUUID() })}`, 'Content-Type': 'application/json' };
    const { raw_key: key, id } = (await (
      await fetch(`${a.baseUrl}/api/v1/api-keys`, { method: 'POST', headers: auth, body: '{"name":"busy"}' })
    ).json()) as CreatedKey;
    const seen: number[] = [];
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline) {
      await Promise.all([toolsList(a, key), toolsList(b, key), toolsList(a, key)]);
      const [row] = await db.dataSource.query('SELECT last_used_at FROM api_keys WHERE id = $1', [id]);
      if (row.last_used_at) seen.push(new Date(row.last_used_at).getTime());
    }
    expect(seen.length).toBeGreaterThan(1);
    for (let i = 1; i < seen.length; i += 1) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
  });
});
