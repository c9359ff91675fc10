import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('health endpoints', () => {
  it('reports liveness and readiness, and 503 once the database is unreachable', async () => {
    await request(t.app).get('/healthz').expect(200, { status: 'ok' });
    await request(t.app).get('/readyz').expect(200, { status: 'ready' });
    await t.db.dataSource.destroy();
    const res = await request(t.app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    await request(t.app).get('/healthz').expect(200);
  });

  it('answers unknown routes with a 404 problem', async () => {
    const res = await request(t.app).get('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('urn:keygate:problem:route-not-found');
  });
});
