import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { FixedClock } from '../fakes/fixed-clock';
import { startTestApp, TestApp } from '../support/test-app';

let t: TestApp;
const clock = new FixedClock(new Date());

beforeAll(async () => {
  t = await startTestApp({ MAX_KEYS_PER_USER: '3' }, clock);
});
afterAll(() => t.close());

const create = (token: string, body: unknown) =>
  request(t.app)
    .post('/api/v1/api-keys')
    .set('Authorization', `Bearer ${token}`)
    .send(body as object);

function expectProblem(res: request.Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toEqual(
    expect.objectContaining({ type: expect.any(String), title: expect.any(String), status, detail: expect.any(String) }),
  );
}

describe('POST /api/v1/api-keys', () => {
  it('creates a key (201, no-store) and returns the raw key once', async () => {
    const user = randomUUID();
    const res = await create(t.userToken(user), { name: 'ci', scopes: ['projects:read'], expires_at: '2099-01-01T00:00:00Z' });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual([
      'created_at',
      'expires_at',
      'id',
      'key_prefix',
      'name',
      'quota',
      'rate_limit',
      'raw_key',
      'scopes',
    ]);
    expect(res.body.raw_key).toMatch(/^svc_[0-9a-f]{64}$/);
    expect(res.body.key_prefix).toBe(res.body.raw_key.slice(0, 8));
    expect(res.body.expires_at).toBe('2099-01-01T00:00:00.000Z');
    const rows = await t.db.dataSource.query('SELECT * FROM api_keys WHERE id = $1', [res.body.id]);
    expect(JSON.stringify(rows)).not.toContain(res.body.raw_key);
    expect(rows[0].user_id).toBe(user);
  });

  it.each([
    ['missing name', { scopes: [] }, 'name'],
    ['blank name', { name: '   ' }, 'name'],
    ['name over 255 characters', { name: 'x'.repeat(256) }, 'name'],
    ['unknown scope', { name: 'k', scopes: ['projects:admin'] }, 'scopes[0]'],
    ['scope not in the catalog', { name: 'k', scopes: ['billing:read'] }, 'scopes[0]'],
    ['duplicate scopes', { name: 'k', scopes: ['chat:read', 'chat:read'] }, 'scopes[1]'],
    ['expires_at not ISO-8601', { name: 'k', expires_at: 'tomorrow' }, 'expires_at'],
    ['expires_at in the past', { name: 'k', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
    ['user_id not a UUID', { name: 'k', user_id: '42' }, 'user_id'],
    ['an unknown field', { name: 'k', owner: 'me' }, 'owner'],
    ['a body that is not an object', ['name'], 'body'],
  ])('answers 400 for %s and stores nothing', async (_case, body, field) => {
    const user = randomUUID();
    const res = await create(t.userToken(user), body);
    expectProblem(res, 400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    const [{ count }] = await t.db.dataSource.query('SELECT count(*)::int AS count FROM api_keys WHERE user_id = $1', [user]);
    expect(count).toBe(0);
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await request(t.app)
      .post('/api/v1/api-keys')
      .set('Authorization', `Bearer ${t.userToken()}`)
      .set('Content-Type', 'application/json')
      .send('{"name":');
    expectProblem(res, 400);
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await request(t.app)
      .post('/api/v1/api-keys')
      .set('Authorization', `Bearer ${t.userToken()}`)
      .set('Content-Type', 'text/plain')
      .send('name=k');
    expectProblem(res, 415);
  });

  it('answers 413 for a body over 64 KiB', async () => {
    const res = await create(t.userToken(), { name: 'k', pad: 'x'.repeat(70 * 1024) });
    expectProblem(res, 413);
  });

  it('answers 403 when a non-admin names another user, and lets an admin do it', async () => {
    const other = randomUUID();
    expectProblem(await create(t.userToken(), { name: 'k', user_id: other }), 403);
    const res = await create(t.adminToken(), { name: 'k', user_id: other });
    expect(res.status).toBe(201);
    const listed = await request(t.app)
      .get('/api/v1/api-keys')
      .set('Authorization', `Bearer ${t.userToken(other)}`);
    expect(listed.body.map((k: { id: string }) => k.id)).toEqual([res.body.id]);
  });

  it('answers 409 once the user holds MAX_KEYS_PER_USER keys', async () => {
    const token = t.userToken();
    for (let i = 0; i < 3; i += 1) expect((await create(token, { name: `k${i}` })).status).toBe(201);
    expectProblem(await create(token, { name: 'one too many' }), 409);
  });
});

describe('GET /api/v1/api-keys', () => {
  it('lists non-revoked keys newest first, expired included, without secrets', async () => {
    const user = randomUUID();
    const token = t.userToken(user);
    const a = await create(token, { name: 'a', expires_at: new Date(clock.now().getTime() + 3600_000).toISOString() });
    clock.advance(1000);
    const b = await create(token, { name: 'b', scopes: ['chat:write'] });
    clock.advance(1000);
    const c = await create(token, { name: 'c' });
    await request(t.app).delete(`/api/v1/api-keys/${c.body.id}`).set('Authorization', `Bearer ${token}`).expect(204);
    clock.advance(2 * 3600_000); // key a is now expired
    const res = await request(t.app).get('/api/v1/api-keys').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body.map((k: { id: string }) => k.id)).toEqual([b.body.id, a.body.id]);
    expect(Object.keys(res.body[0]).sort()).toEqual([
      'created_at',
      'expires_at',
      'id',
      'key_prefix',
      'last_used_at',
      'name',
      'quota',
      'rate_limit',
      'replaced_by',
      'revoked_at',
      'scopes',
      'user_id',
    ]);
    expect(res.body[0]).toMatchObject({ name: 'b', scopes: ['chat:write'], user_id: user, revoked_at: null });
  });

  it('answers 403 for another user (non-admin), 200 for an admin, 400 for a bad user_id', async () => {
    const other = randomUUID();
    const list = (token: string, query: Record<string, string>) =>
      request(t.app).get('/api/v1/api-keys').query(query).set('Authorization', `Bearer ${token}`);
    expectProblem(await list(t.userToken(), { user_id: other }), 403);
    expect((await list(t.adminToken(), { user_id: other })).status).toBe(200);
    expectProblem(await list(t.userToken(), { user_id: 'nope' }), 400);
  });
});

describe('GET /api/v1/api-keys/:id', () => {
  const get = (id: string, token: string) => request(t.app).get(`/api/v1/api-keys/${id}`).set('Authorization', `Bearer ${token}`);

  it('answers the key as the list shows it, with its quota balance, and a revoked one with revoked_at', async () => {
    const user = randomUUID();
    const token = t.userToken(user);
    const key = await create(token, {
      name: 'one',
      scopes: ['chat:read'],
      rate_limit: { limit: 5, window_seconds: 60 },
      quota: { remaining: 9 },
    });
    const res = await get(key.body.id, token);
    expect(res.status).toBe(200);
    const [listed] = (await request(t.app).get('/api/v1/api-keys').set('Authorization', `Bearer ${token}`)).body;
    expect(res.body).toEqual(listed);
    expect(res.body).toMatchObject({
      name: 'one',
      user_id: user,
      quota: { remaining: 9, refill: null },
      rate_limit: { limit: 5, window_seconds: 60 },
    });
    await request(t.app).delete(`/api/v1/api-keys/${key.body.id}`).set('Authorization', `Bearer ${token}`).expect(204);
    const revoked = await get(key.body.id, token);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toBe(clock.now().toISOString());
  });

  it("answers 404 for an unknown id and another user's key (200 for an admin), 400 for a bad id or a query parameter", async () => {
    const key = await create(t.userToken(), { name: 'k' });
    expectProblem(await get(randomUUID(), t.userToken()), 404);
    expectProblem(await get(key.body.id, t.userToken()), 404);
    expect((await get(key.body.id, t.adminToken())).body.id).toBe(key.body.id);
    expectProblem(await get('not-a-uuid', t.userToken()), 400);
    expectProblem(
      await request(t.app).get(`/api/v1/api-keys/${key.body.id}?user_id=x`).set('Authorization', `Bearer ${t.adminToken()}`),
      400,
    );
  });
});

describe('DELETE /api/v1/api-keys/:id', () => {
  it('revokes with 204 and no body; a second revoke is 404', async () => {
    const token = t.userToken();
    const key = await create(token, { name: 'k' });
    const res = await request(t.app).delete(`/api/v1/api-keys/${key.body.id}`).set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectProblem(await request(t.app).delete(`/api/v1/api-keys/${key.body.id}`).set('Authorization', `Bearer ${token}`), 404);
  });

  it("answers 404 for an unknown id and for another user's key, 400 for a non-UUID id", async () => {
    const key = await create(t.userToken(), { name: 'k' });
    const del = (id: string, token: string) => request(t.app).delete(`/api/v1/api-keys/${id}`).set('Authorization', `Bearer ${token}`);
    expectProblem(await del(randomUUID(), t.userToken()), 404);
    expectProblem(await del(key.body.id, t.userToken()), 404);
    expectProblem(await del('not-a-uuid', t.userToken()), 400);
    expect((await del(key.body.id, t.adminToken())).status).toBe(204);
  });
});
