import request from 'supertest';
import { isDatabaseUnavailable } from '../../../src/adapters/persistence/database-unavailable';
import { eventually } from '../../support/replica';
import { appOnOwnPostgres } from '../../support/own-postgres-app';
import { TestApp } from '../../support/test-app';

jest.setTimeout(90_000);

/**
 * This file stops and restarts PostgreSQL, so it has a server of its own. Cached keys stop being served at once
 * (KEY_CACHE_STALE_AFTER_MS=0), so every key meets the outage; the failover e2e test covers the stale window.
 */
const own = appOnOwnPostgres('outage', { KEY_CACHE_STALE_AFTER_MS: '0' });
const app = (): TestApp => own.t;

const mcp = (key: string) =>
  request(app().app)
    .post('/mcp')
    .set('X-API-Key', key)
    .set('Accept', 'application/json, text/event-stream')
    .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

describe('when PostgreSQL goes away and comes back', () => {
  it('answers 503 (never 200) while it is down and serves again without a restart', async () => {
    const user = app().userToken();
    const created = await request(app().app)
      .post('/api/v1/api-keys')
      .set('Authorization', `Bearer ${user}`)
      .send({ name: 'k' })
      .expect(201);
    const other = await request(app().app).post('/api/v1/api-keys').set('Authorization', `Bearer ${user}`).send({ name: 'k2' }).expect(201);
    await mcp(created.body.raw_key).expect(200); // now cached

    await own.stopDatabase();
    await eventually(() => !app().hotPath.cache.isEnabled, 5000);
    for (const key of [created.body.raw_key, other.body.raw_key, `svc_${'a'.repeat(64)}`]) {
      const res = await mcp(key);
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    const list = await request(app().app).get('/api/v1/api-keys').set('Authorization', `Bearer ${user}`);
    expect(list.status).toBe(503);
    expect(list.body.type).toBe('urn:keygate:problem:database-unavailable');
    expect((await request(app().app).get('/readyz')).status).toBe(503);

    await own.startDatabase();
    const recovery = await eventually(async () => (await mcp(other.body.raw_key)).status === 200, 20_000, 100);
    expect(recovery).toBeLessThan(20_000);
    expect((await request(app().app).get('/readyz')).status).toBe(200);
    await eventually(() => app().hotPath.cache.isEnabled, 10_000, 50);
  });

  it('recognises connection failures as unavailability, not as bugs', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
  });
});
