import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const call = (token: string) => ({
  get: (path: string) => request(t.app).get(path).set('Authorization', `Bearer ${token}`),
  post: (path: string, body: object) => request(t.app).post(path).set('Authorization', `Bearer ${token}`).send(body),
  patch: (path: string, body: object) => request(t.app).patch(path).set('Authorization', `Bearer ${token}`).send(body),
  delete: (path: string) => request(t.app).delete(path).set('Authorization', `Bearer ${token}`),
});

describe.each([
  {
    base: '/api/v1/agent-roles',
    create: { name: 'writer', description: 'writes docs', platform_scopes: ['projects:write'] },
    update: { platform_scopes: ['projects:read', 'chat:write'] },
    named: (name: string) => ({ name, platform_scopes: ['projects:write'] }),
    badScopes: { name: 'bad', platform_scopes: ['projects:read', 'nope:read'] },
    badField: 'platform_scopes[1]',
  },
  {
    base: '/api/v1/mode-tool-configs',
    create: { mode: 'deploy', additional_scopes: ['models:write'] },
    update: { additional_scopes: ['models:read'] },
    named: (mode: string) => ({ mode, additional_scopes: ['chat:read'] }),
    badScopes: { mode: 'bad', additional_scopes: ['projects:read', 'nope:read'] },
    badField: 'additional_scopes[1]',
  },
])('$base', ({ base, create, update, named, badScopes, badField }) => {
  it('lets admins create (201), update and delete (204), and anyone authenticated read', async () => {
    const admin = call(t.adminToken());
    const user = call(t.userToken());
    const created = await admin.post(base, create).expect(201);
    expect(created.body).toMatchObject(create);
    expect((await user.get(base).expect(200)).body.map((x: { id: string }) => x.id)).toContain(created.body.id);
    expect((await user.get(`${base}/${created.body.id}`).expect(200)).body).toMatchObject(create);
    const updated = await admin.patch(`${base}/${created.body.id}`, update).expect(200);
    expect(updated.body).toMatchObject({ ...create, ...update });
    await admin.delete(`${base}/${created.body.id}`).expect(204);
    await user.get(`${base}/${created.body.id}`).expect(404);
    await admin.delete(`${base}/${created.body.id}`).expect(404);
    await admin.patch(`${base}/${created.body.id}`, update).expect(404);
  });

  it('answers 403 to non-admins for every change and changes nothing', async () => {
    const admin = call(t.adminToken());
    const user = call(t.userToken());
    const existing = await admin.post(base, named('kept')).expect(201);
    await user.post(base, create).expect(403);
    await user.patch(`${base}/${existing.body.id}`, update).expect(403);
    await user.delete(`${base}/${existing.body.id}`).expect(403);
    expect((await user.get(`${base}/${existing.body.id}`).expect(200)).body).toEqual(existing.body);
  });

  it('answers 409 for a duplicate name, 400 for bad input naming the field, 404 for an unknown id', async () => {
    const admin = call(t.adminToken());
    await admin.post(base, named('dup')).expect(201);
    expect((await admin.post(base, named('dup'))).status).toBe(409);
    const bad = await admin.post(base, badScopes).expect(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual([badField]);
    expect(bad.body.detail).toContain('nope:read');
    await admin.post(base, { ...create, extra: 1 }).expect(400);
    await admin.patch(`${base}/00000000-0000-4000-8000-000000000000`, update).expect(404);
    await admin.patch(`${base}/not-a-uuid`, update).expect(400);
    await admin.patch(`${base}/00000000-0000-4000-8000-000000000000`, {}).expect(400);
    await call(t.userToken()).get(`${base}/00000000-0000-4000-8000-000000000000`).expect(404);
  });
});

describe('agent role names', () => {
  it('are unique regardless of case', async () => {
    const admin = call(t.adminToken());
    await admin.post('/api/v1/agent-roles', { name: 'Analyst', platform_scopes: [] }).expect(201);
    await admin.post('/api/v1/agent-roles', { name: 'analyst', platform_scopes: [] }).expect(409);
  });
});

describe('agent role platform_scopes at creation', () => {
  it.each([
    ['left out', { name: 'no-scopes' }],
    ['null', { name: 'null-scopes', platform_scopes: null }],
  ])('is required: %s is a 400 naming it, and no role is created', async (_what, body) => {
    const admin = call(t.adminToken());
    const before = (await admin.get('/api/v1/agent-roles').expect(200)).body;
    const res = await admin.post('/api/v1/agent-roles', body).expect(400);
    expect(res.body.errors).toEqual([{ field: 'platform_scopes', message: expect.stringContaining('required') }]);
    expect((await admin.get('/api/v1/agent-roles').expect(200)).body).toEqual(before);
  });

  it('still means full access when given as []', async () => {
    const res = await call(t.adminToken()).post('/api/v1/agent-roles', { name: 'everything', platform_scopes: [] }).expect(201);
    expect(res.body.platform_scopes).toEqual([]);
  });
});

describe('system roles', () => {
  it('can be edited but not deleted (409)', async () => {
    const admin = call(t.adminToken());
    const roles = (await admin.get('/api/v1/agent-roles').expect(200)).body;
    const observer = roles.find((r: { name: string }) => r.name === 'observer');
    await admin.patch(`/api/v1/agent-roles/${observer.id}`, { description: 'read-only agents' }).expect(200);
    const res = await admin.delete(`/api/v1/agent-roles/${observer.id}`);
    expect(res.status).toBe(409);
    expect((await admin.get(`/api/v1/agent-roles/${observer.id}`).expect(200)).body.description).toBe('read-only agents');
  });

  it('mode configs must add at least one scope', async () => {
    const res = await call(t.adminToken()).post('/api/v1/mode-tool-configs', { mode: 'empty', additional_scopes: [] }).expect(400);
    expect(res.body.errors[0].field).toBe('additional_scopes');
  });
});

describe('GET /api/v1/scopes', () => {
  it('returns the 12-scope catalog with what each covers, to any authenticated user', async () => {
    const res = await call(t.userToken()).get('/api/v1/scopes').expect(200);
    expect(res.body).toHaveLength(12);
    expect(res.body[0]).toEqual({
      scope: 'agents:read',
      resource: 'agents',
      permission: 'read',
      covers: expect.stringContaining('prompt'),
    });
    await request(t.app).get('/api/v1/scopes').expect(401);
  });
});
