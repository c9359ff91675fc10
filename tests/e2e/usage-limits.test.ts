import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Express } from 'express';
import request from 'supertest';
import { loadConfig } from '../../src/infrastructure/config/config';
import { createDataSource } from '../../src/infrastructure/database/data-source';
import { buildContainer } from '../../src/infrastructure/di/container';
import { Lifecycle } from '../../src/infrastructure/di/lifecycle';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { checkedApp } from '../support/openapi-drift';
import { FixedClock } from '../fakes/fixed-clock';
import { listenLoopback } from '../support/listen-loopback';
import { eventually } from '../support/replica';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_AUDIENCE, TEST_ISSUER } from '../support/test-identity-provider';

jest.setTimeout(60_000);

interface Replica {
  url: string;
  close(): Promise<void>;
}

/** An app listening on a port of its own, so requests to it run concurrently. */
async function listen(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const { url, close } = await listenLoopback(http.createServer(app));
  return { url, close };
}

/** A second whole app (own pool, caches, leases, listener) on the first one's database. */
async function secondReplica(first: TestApp): Promise<Replica> {
  const dataSource = createDataSource({ url: first.db.url, poolSize: 5 });
  await dataSource.initialize();
  const config = loadConfig({
    NODE_ENV: 'test',
    JWT_JWKS_URI: first.idp.jwksUri,
    JWT_ISSUER: TEST_ISSUER,
    JWT_AUDIENCE: TEST_AUDIENCE,
    DATABASE_URL: first.db.url,
    SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
  });
  const logger = createLogger('silent');
  const container = buildContainer({ config, database: { dataSource, close: () => dataSource.destroy() }, logger });
  const lifecycle = container.get(Lifecycle);
  await lifecycle.start();
  const served = await listen(checkedApp(container, { logger }));
  return {
    url: served.url,
    close: async () => {
      await served.close();
      await lifecycle.stop();
    },
  };
}

const ACCEPT = 'application/json, text/event-stream';
const listProjects = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'projects', arguments: { action: 'list' } },
});
const toolsList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

function post(url: string, raw: string, body: unknown) {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${raw}`, 'Content-Type': 'application/json', Accept: ACCEPT },
    body: JSON.stringify(body),
  });
}

let a: TestApp;
let aServed: { url: string; close(): Promise<void> };
let b: Replica;

beforeAll(async () => {
  a = await startTestApp();
  aServed = await listen(a.app);
  b = await secondReplica(a);
});
afterAll(async () => {
  await b?.close();
  await aServed?.close();
  await a?.close();
});

async function createKey(
  user: string,
  fields: Record<string, unknown>,
): Promise<{ id: string; raw: string; body: Record<string, unknown> }> {
  const res = await request(a.app)
    .post('/api/v1/api-keys')
    .set('Authorization', `Bearer ${a.userToken(user)}`)
    .send({ name: 'limited', ...fields })
    .expect(201);
  return { id: res.body.id, raw: res.body.raw_key, body: res.body };
}

async function listed(user: string, id: string): Promise<Record<string, unknown>> {
  const res = await request(a.app)
    .get('/api/v1/api-keys')
    .set('Authorization', `Bearer ${a.userToken(user)}`)
    .expect(200);
  return (res.body as Record<string, unknown>[]).find((k) => k.id === id)!;
}

describe('quota across two replicas', () => {
  it('admits exactly N tool calls, refuses the rest with a 429 quota-exhausted problem, and lists 0 within 2 s', async () => {
    const user = randomUUID();
    const N = 37;
    const key = await createKey(user, { quota: { remaining: N, refill: null } });
    const replicas = [aServed.url, b.url];
    const answers = await Promise.all(Array.from({ length: 3 * N }, (_, i) => post(replicas[i % 2], key.raw, listProjects(i + 1))));
    const bodies = await Promise.all(
      answers.map(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> })),
    );
    const ran = bodies.filter((r) => r.status === 200 && 'result' in r.body);
    const refused = bodies.filter((r) => r.status === 429);
    expect(ran).toHaveLength(N);
    expect(refused).toHaveLength(2 * N);
    for (const r of refused) expect(r.body).toMatchObject({ type: 'urn:keygate:problem:quota-exhausted', status: 429 });
    await eventually(async () => ((await listed(user, key.id)).quota as { remaining: number }).remaining === 0, 2000, 50);
  });

  it('charges nothing for initialize, ping, tools/list and notifications', async () => {
    const user = randomUUID();
    const key = await createKey(user, { quota: { remaining: 1 } });
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    for (const body of [
      init,
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      toolsList,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]) {
      expect((await post(b.url, key.raw, body)).status).toBeLessThan(300);
    }
    expect((await post(b.url, key.raw, listProjects(3))).status).toBe(200);
    expect((await post(aServed.url, key.raw, listProjects(4))).status).toBe(429);
  });

  it('charges a batch of k calls k credits, all or none', async () => {
    const user = randomUUID();
    const key = await createKey(user, { quota: { remaining: 3 } });
    const refused = await post(aServed.url, key.raw, [listProjects(1), listProjects(2), listProjects(3), listProjects(4)]);
    expect(refused.status).toBe(429);
    const ran = await post(aServed.url, key.raw, [listProjects(1), listProjects(2), listProjects(3)]);
    expect(ran.status).toBe(200);
    expect((await ran.json()) as unknown[]).toHaveLength(3);
    expect((await post(b.url, key.raw, listProjects(9))).status).toBe(429);
  });

  it('lets a PATCH of the balance win over credits a replica already holds', async () => {
    const user = randomUUID();
    const key = await createKey(user, { quota: { remaining: 1000 } });
    expect((await post(aServed.url, key.raw, listProjects(1))).status).toBe(200); // a now holds a lease of ~32 credits
    await request(a.app)
      .patch(`/api/v1/api-keys/${key.id}`)
      .set('Authorization', `Bearer ${a.userToken(user)}`)
      .send({ quota: { remaining: 2, refill: null } })
      .expect(200);
    // b's replica hears of it through NOTIFY; a dropped its lease at once, both by the trigger.
    await new Promise((r) => setTimeout(r, 200));
    const statuses = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await post(i % 2 ? b.url : aServed.url, key.raw, listProjects(i))).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
  });
});

describe('rate limit across two replicas', () => {
  it('admits at most 10% over the limit in one window, with RateLimit headers on 200s and 429s', async () => {
    const user = randomUUID();
    const limit = 60;
    const key = await createKey(user, { rate_limit: { limit, window_seconds: 3600 } });
    const replicas = [aServed.url, b.url];
    const answers = await Promise.all(Array.from({ length: 3 * limit }, (_, i) => post(replicas[i % 2], key.raw, toolsList)));
    const ok = answers.filter((r) => r.status === 200);
    const limited = answers.filter((r) => r.status === 429);
    expect(ok.length).toBeLessThanOrEqual(Math.floor(limit * 1.1));
    expect(ok.length).toBeGreaterThanOrEqual(limit - 2 * Math.floor(limit / 20));
    expect(ok.length + limited.length).toBe(3 * limit);
    const sample = ok[0];
    expect(sample.headers.get('ratelimit-policy')).toBe(`"key";q=${limit};w=3600`);
    expect(sample.headers.get('ratelimit')).toMatch(/^"key";r=\d+;t=\d+$/);
    const refused = limited[0];
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-policy')).toBe(`"key";q=${limit};w=3600`);
    expect(refused.headers.get('ratelimit')).toMatch(/^"key";r=0;t=[1-9]\d*$/);
    expect(await refused.json()).toMatchObject({ type: 'urn:keygate:problem:rate-limited', status: 429 });
    const metrics = await request(a.app).get('/metrics');
    expect(metrics.text).toMatch(/keygate_rate_limited_total [1-9]/);
  });

  it('puts the headers on a 403 to a limited key, and none on answers to an unlimited one', async () => {
    const user = randomUUID();
    const limited = await createKey(user, { scopes: ['chat:read'], rate_limit: { limit: 100, window_seconds: 3600 } });
    const denied = await post(b.url, limited.raw, listProjects(1));
    expect(denied.status).toBe(403);
    expect(denied.headers.get('ratelimit')).toMatch(/^"key";r=\d+;t=\d+$/);
    const free = await createKey(user, {});
    const plain = await post(b.url, free.raw, toolsList);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('ratelimit')).toBeNull();
  });
});

describe('limit fields through the key API', () => {
  it('shows them at create and in the list, carries them through a roll, and records each PATCH', async () => {
    const user = randomUUID();
    const auth = `Bearer ${a.userToken(user)}`;
    const rate = { limit: 10, window_seconds: 60 };
    const quota = { remaining: 5, refill: { amount: 50, interval: 'day' } };
    const key = await createKey(user, { rate_limit: rate, quota });
    expect(key.body).toMatchObject({ rate_limit: rate, quota });
    expect(await listed(user, key.id)).toMatchObject({ rate_limit: rate, quota });

    const patched = await request(a.app)
      .patch(`/api/v1/api-keys/${key.id}`)
      .set('Authorization', auth)
      .send({ rate_limit: null, quota: { remaining: 7, refill: null } })
      .expect(200);
    expect(patched.body).toMatchObject({ rate_limit: null, quota: { remaining: 7, refill: null } });
    const events = await a.db.dataSource.query(`SELECT details FROM audit_events WHERE key_id = $1 AND action = 'key.updated'`, [key.id]);
    expect(events).toHaveLength(1);
    expect(events[0].details).toEqual({ changed: { rate_limit: null, quota: { refill: null } }, quota_remaining: 7 });

    const rolled = await request(a.app)
      .post(`/api/v1/api-keys/${key.id}/roll`)
      .set('Authorization', auth)
      .send({ grace_seconds: 60 })
      .expect(201);
    expect(rolled.body).toMatchObject({ rate_limit: null, quota: { remaining: 7, refill: null } });
    // One budget: a call through the new key shows on the old one too.
    expect((await post(b.url, rolled.body.raw_key, listProjects(1))).status).toBe(200);
    await request(a.app)
      .patch(`/api/v1/api-keys/${rolled.body.id}`)
      .set('Authorization', auth)
      .send({ quota: { remaining: 1 } })
      .expect(200);
    await new Promise((r) => setTimeout(r, 200));
    expect((await post(aServed.url, key.raw, listProjects(2))).status).toBe(200);
    expect((await post(b.url, rolled.body.raw_key, listProjects(3))).status).toBe(429);
  });

  it.each([
    [{ rate_limit: { limit: 0, window_seconds: 60 } }, 'rate_limit.limit'],
    [{ rate_limit: { limit: 1_000_001, window_seconds: 60 } }, 'rate_limit.limit'],
    [{ rate_limit: { limit: 10, window_seconds: 86_401 } }, 'rate_limit.window_seconds'],
    [{ rate_limit: { limit: 10 } }, 'rate_limit.window_seconds'],
    [{ rate_limit: { limit: 10, window_seconds: 60, burst: 1 } }, 'rate_limit.burst'],
    [{ rate_limit: 'fast' }, 'rate_limit'],
    [{ quota: { remaining: -1 } }, 'quota.remaining'],
    [{ quota: { remaining: 1_000_000_001 } }, 'quota.remaining'],
    [{ quota: { remaining: 1.5 } }, 'quota.remaining'],
    [{ quota: { remaining: 1, refill: { amount: 0, interval: 'day' } } }, 'quota.refill.amount'],
    [{ quota: { remaining: 1, refill: { amount: 5, interval: 'week' } } }, 'quota.refill.interval'],
    [{ quota: { remaining: 1, refill: { amount: 5, interval: 'day', at: 1 } } }, 'quota.refill.at'],
    [{ quota: { remaining: 1, extra: true } }, 'quota.extra'],
    [{ quota: [] }, 'quota'],
  ])('refuses %j with a 400 naming %s, at create and PATCH, writing nothing', async (fields, field) => {
    const user = randomUUID();
    const auth = `Bearer ${a.userToken(user)}`;
    const created = await request(a.app)
      .post('/api/v1/api-keys')
      .set('Authorization', auth)
      .send({ name: 'bad', ...fields })
      .expect(400);
    expect(created.body.errors).toEqual([expect.objectContaining({ field })]);
    const key = await createKey(user, {});
    const patched = await request(a.app).patch(`/api/v1/api-keys/${key.id}`).set('Authorization', auth).send(fields).expect(400);
    expect(patched.body.errors).toEqual([expect.objectContaining({ field })]);
    const [{ count }] = await a.db.dataSource.query(
      `SELECT count(*)::int AS count FROM audit_events WHERE key_id = $1 AND action = 'key.updated'`,
      [key.id],
    );
    expect(count).toBe(0);
  });
});

describe('refill', () => {
  it('sets remaining to the amount at the start of each period', async () => {
    const clock = new FixedClock(new Date('2026-06-01T12:30:00.000Z'));
    const t = await startTestApp({}, clock);
    try {
      const user = randomUUID();
      const res = await request(t.app)
        .post('/api/v1/api-keys')
        .set('Authorization', `Bearer ${t.userToken(user)}`)
        .send({ name: 'hourly', quota: { remaining: 1, refill: { amount: 3, interval: 'hour' } } })
        .expect(201);
      const raw = res.body.raw_key as string;
      const callOnce = async () =>
        (
          await request(t.app)
            .post('/mcp')
            .set('Authorization', `Bearer ${raw}`)
            .set('Content-Type', 'application/json')
            .set('Accept', ACCEPT)
            .send(listProjects(1))
        ).status;
      expect(await callOnce()).toBe(200);
      expect(await callOnce()).toBe(429);
      clock.advance(30 * 60_000); // 13:00, a new hour
      const list = await request(t.app)
        .get('/api/v1/api-keys')
        .set('Authorization', `Bearer ${t.userToken(user)}`)
        .expect(200);
      expect(list.body[0].quota).toEqual({ remaining: 3, refill: { amount: 3, interval: 'hour' } });
      await new Promise((r) => setTimeout(r, 150)); // past the memory of the last refusal
      expect([await callOnce(), await callOnce(), await callOnce(), await callOnce()]).toEqual([200, 200, 200, 429]);
    } finally {
      await t.close();
    }
  });
});
