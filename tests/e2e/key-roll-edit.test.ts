import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { FixedClock } from '../fakes/fixed-clock';
import { rpc } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';

let t: TestApp;
const clock = new FixedClock(new Date());

beforeAll(async () => {
  t = await startTestApp({ MAX_KEYS_PER_USER: '2' }, clock);
});
afterAll(() => t.close());

const auth = (user: string, admin = false) => `Bearer ${admin ? t.adminToken(user) : t.userToken(user)}`;
const create = (user: string, body: object) =>
  request(t.app)
    .post('/api/v1/api-keys')
    .set('Authorization', auth(user))
    .send(body)
    .expect(201)
    .then((r) => r.body);
const roll = (user: string, id: string, body?: object, admin = false) => {
  const req = request(t.app).post(`/api/v1/api-keys/${id}/roll`).set('Authorization', auth(user, admin));
  return body === undefined ? req : req.send(body);
};
const patch = (user: string, id: string, body: unknown) =>
  request(t.app)
    .patch(`/api/v1/api-keys/${id}`)
    .set('Authorization', auth(user))
    .send(body as object);
const list = async (user: string) =>
  (await request(t.app).get('/api/v1/api-keys').set('Authorization', auth(user)).expect(200)).body as {
    id: string;
    replaced_by: string | null;
    expires_at: string | null;
  }[];
const mcpStatus = async (raw: string) => (await rpc(t, { id: '', raw, user: '' }, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status;
const toolNames = async (raw: string) =>
  ((await rpc(t, { id: '', raw, user: '' }, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result.tools as { name: string }[]).map(
    (x) => x.name,
  );
const events = async (keyId: string) =>
  await t.db.dataSource.query<
    { action: string; actor_type: string; actor_id: string; user_id: string; details: Record<string, unknown> }[]
  >('SELECT action, actor_type, actor_id, user_id, details FROM audit_events WHERE key_id = $1 ORDER BY seq', [keyId]);
const keyRows = async (user: string) =>
  (await t.db.dataSource.query('SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1', [user]))[0].n as number;

describe('POST /api/v1/api-keys/:id/roll', () => {
  it('answers 201 with the new key, which keeps the name, scopes and expiry, and revokes the old one at once by default', async () => {
    const user = randomUUID();
    const expiresAt = new Date(clock.now().getTime() + 86_400_000).toISOString();
    const old = await create(user, { name: 'deploy', scopes: ['projects:read'], expires_at: expiresAt });
    const res = await roll(user, old.id);
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
      'replaces',
      'scopes',
    ]);
    expect(res.body).toMatchObject({ name: 'deploy', scopes: ['projects:read'], expires_at: expiresAt, replaces: old.id });
    expect(res.body.raw_key).toMatch(/^svc_[0-9a-f]{64}$/);
    expect(res.body.id).not.toBe(old.id);
    expect(await mcpStatus(old.raw_key)).toBe(401);
    expect(await mcpStatus(res.body.raw_key)).toBe(200);
    expect((await list(user)).map((k) => k.id)).toEqual([res.body.id]);
    const [row] = await t.db.dataSource.query('SELECT replaced_by, revoked_at FROM api_keys WHERE id = $1', [old.id]);
    expect(row.replaced_by).toBe(res.body.id);
    expect(row.revoked_at).not.toBeNull();
  });

  it('leaves both keys working during the grace period, lists the old one with replaced_by, and refuses it after', async () => {
    const user = randomUUID();
    const old = await create(user, { name: 'agent' });
    await mcpStatus(old.raw_key); // cached before the roll
    clock.advance(1000); // the new key is the newer one in the list
    const res = await roll(user, old.id, { grace_seconds: 60 }).expect(201);
    expect(await mcpStatus(old.raw_key)).toBe(200);
    expect(await mcpStatus(res.body.raw_key)).toBe(200);
    const listed = await list(user);
    expect(listed.map((k) => [k.id, k.replaced_by])).toEqual([
      [res.body.id, null],
      [old.id, res.body.id],
    ]);
    expect(listed[1].expires_at).toBe(new Date(clock.now().getTime() + 60_000).toISOString());
    clock.advance(60_001);
    try {
      expect(await mcpStatus(old.raw_key)).toBe(401);
      expect(await mcpStatus(res.body.raw_key)).toBe(200);
      expect((await list(user)).map((k) => k.id)).toEqual([res.body.id]);
    } finally {
      clock.advance(-60_001);
    }
  });

  it('never lets the old key outlive its own expiry', async () => {
    const user = randomUUID();
    const soon = new Date(clock.now().getTime() + 10_000).toISOString();
    const old = await create(user, { name: 'short', expires_at: soon });
    await roll(user, old.id, { grace_seconds: 3600 }).expect(201);
    const [row] = await t.db.dataSource.query('SELECT expires_at FROM api_keys WHERE id = $1', [old.id]);
    expect(new Date(row.expires_at).toISOString()).toBe(soon);
  });

  it("refuses a roll with a grace at MAX_KEYS_PER_USER as a create is, allows one without, and lets an admin roll anyone's key", async () => {
    const user = randomUUID();
    const a = await create(user, { name: 'a' });
    await create(user, { name: 'b' });
    const refused = await roll(user, a.id, { grace_seconds: 30 });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/already holds 2 non-revoked keys/);
    expect(await keyRows(user)).toBe(2);
    expect(await mcpStatus(a.raw_key)).toBe(200);
    const rolled = await roll(user, a.id).expect(201);
    expect(await keyRows(user)).toBe(3);
    expect((await list(user)).length).toBe(2);
    await roll(randomUUID(), rolled.body.id, {}, true).expect(201);
  });

  it('counts both keys during the grace, and the old one no more once it ends', async () => {
    const user = randomUUID();
    const a = await create(user, { name: 'a' });
    await roll(user, a.id, { grace_seconds: 30 }).expect(201);
    expect((await request(t.app).post('/api/v1/api-keys').set('Authorization', auth(user)).send({ name: 'c' })).status).toBe(409);
    clock.advance(30_000);
    try {
      await create(user, { name: 'c' });
    } finally {
      clock.advance(-30_000);
    }
  });

  it.each([
    ['an unknown id', async () => randomUUID(), 404],
    ["another user's key", async () => (await create(randomUUID(), { name: 'theirs' })).id, 404],
    ['a malformed id', async () => 'nope', 400],
  ])('answers %s with its status', async (_case, idOf, status) => {
    const res = await roll(randomUUID(), await idOf());
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('answers 404 for a revoked key and 409 for one already rolled, and writes nothing', async () => {
    const user = randomUUID();
    const revoked = await create(user, { name: 'gone' });
    await request(t.app).delete(`/api/v1/api-keys/${revoked.id}`).set('Authorization', auth(user)).expect(204);
    expect((await roll(user, revoked.id)).status).toBe(404);

    const twice = await create(user, { name: 'twice' });
    await roll(user, twice.id, { grace_seconds: 100 }).expect(201);
    const before = await keyRows(user);
    expect((await roll(user, twice.id, { grace_seconds: 100 })).status).toBe(409);
    expect(await keyRows(user)).toBe(before);
  });

  it('answers 409 for an expired key', async () => {
    const user = randomUUID();
    const expiring = await create(user, { name: 'expiring', expires_at: new Date(clock.now().getTime() + 1000).toISOString() });
    clock.advance(2000);
    try {
      expect((await roll(user, expiring.id)).status).toBe(409);
    } finally {
      clock.advance(-2000);
    }
    expect(await keyRows(user)).toBe(1);
  });

  it.each([
    [{ grace_seconds: -1 }, 'grace_seconds'],
    [{ grace_seconds: 2_592_001 }, 'grace_seconds'],
    [{ grace_seconds: 1.5 }, 'grace_seconds'],
    [{ grace_seconds: '60' }, 'grace_seconds'],
    [{ grace: 60 }, 'grace'],
    [[60], 'body'],
  ])('answers 400 for %p and writes nothing', async (body, field) => {
    const user = randomUUID();
    const old = await create(user, { name: 'k' });
    const res = await roll(user, old.id, body);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await keyRows(user)).toBe(1);
    expect(await mcpStatus(old.raw_key)).toBe(200);
  });

  it('records key.created for the new key and key.rolled for the old one, by the user who rolled', async () => {
    const user = randomUUID();
    const old = await create(user, { name: 'audited', scopes: ['chat:read'] });
    const res = await roll(user, old.id, { grace_seconds: 5 }).expect(201);
    expect(await events(old.id)).toEqual([
      {
        action: 'key.created',
        actor_type: 'user',
        actor_id: user,
        user_id: user,
        details: { name: 'audited', scopes: ['chat:read'], expires_at: null },
      },
      {
        action: 'key.rolled',
        actor_type: 'user',
        actor_id: user,
        user_id: user,
        details: { replaced_by: res.body.id, grace_seconds: 5, old_key_ends_at: new Date(clock.now().getTime() + 5000).toISOString() },
      },
    ]);
    expect(await events(res.body.id)).toEqual([
      expect.objectContaining({
        action: 'key.created',
        details: { name: 'audited', scopes: ['chat:read'], expires_at: null, replaces: old.id },
      }),
    ]);
    expect(JSON.stringify(await t.db.dataSource.query('SELECT * FROM audit_events'))).not.toContain(res.body.raw_key);
  });
});

describe('PATCH /api/v1/api-keys/:id', () => {
  it('changes name, scopes and expiry, answers the list element, and narrowed scopes take the tools away at once', async () => {
    const user = randomUUID();
    const key = await create(user, { name: 'wide' });
    expect(await toolNames(key.raw_key)).toContain('projects'); // cached with full access
    const expiresAt = new Date(clock.now().getTime() + 3_600_000).toISOString();
    const res = await patch(user, key.id, { name: 'narrow', scopes: ['chat:read'], expires_at: expiresAt });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
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
    expect(res.body).toMatchObject({ id: key.id, name: 'narrow', scopes: ['chat:read'], expires_at: expiresAt });
    expect(await toolNames(key.raw_key)).toEqual(['chat']);
    const cleared = await patch(user, key.id, { expires_at: null }).expect(200);
    expect(cleared.body).toMatchObject({ name: 'narrow', expires_at: null });
  });

  it('records key.updated with the fields that changed', async () => {
    const user = randomUUID();
    const key = await create(user, { name: 'before', scopes: ['chat:read'] });
    await patch(user, key.id, { name: 'after', scopes: ['chat:read'] }).expect(200);
    const [, updated] = await events(key.id);
    expect(updated).toEqual({
      action: 'key.updated',
      actor_type: 'user',
      actor_id: user,
      user_id: user,
      details: { changed: { name: 'after' } },
    });
  });

  it.each([
    ['an empty body', {}, 'body'],
    ['an unknown field', { owner: 'me' }, 'owner'],
    ['a past expiry', { expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
    ['null scopes', { scopes: null }, 'scopes'],
    ['an unknown scope', { scopes: ['billing:read'] }, 'scopes[0]'],
    ['a blank name', { name: ' ' }, 'name'],
  ])('answers 400 for %s and changes nothing', async (_case, body, field) => {
    const user = randomUUID();
    const key = await create(user, { name: 'same', scopes: ['chat:read'] });
    const res = await patch(user, key.id, body);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect((await list(user))[0]).toMatchObject({ name: 'same', scopes: ['chat:read'], expires_at: null });
    expect((await events(key.id)).map((e) => e.action)).toEqual(['key.created']);
  });

  it('answers 409 for a rolled key, during or after its grace, so it is never revived past MAX_KEYS_PER_USER', async () => {
    const owner = randomUUID();
    const k = await create(owner, { name: 'graced' });
    const next = await roll(owner, k.id, { grace_seconds: 60 }).expect(201);
    const later = new Date(clock.now().getTime() + 86_400_000).toISOString();
    for (const body of [{ expires_at: null }, { expires_at: later }, { name: 'renamed' }]) {
      const res = await patch(owner, k.id, body);
      expect(res.status).toBe(409);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.detail).toBe(`API key ${k.id} was rolled and cannot be edited; edit its replacement ${next.body.id} instead`);
    }
    clock.advance(60_001);
    try {
      expect((await patch(owner, k.id, { expires_at: null })).status).toBe(409);
      const admin = await request(t.app)
        .patch(`/api/v1/api-keys/${k.id}`)
        .set('Authorization', auth(randomUUID(), true))
        .send({ expires_at: null });
      expect(admin.status).toBe(409);
      expect(await mcpStatus(k.raw_key)).toBe(401);
    } finally {
      clock.advance(-60_001);
    }
    const [stored] = await t.db.dataSource.query('SELECT expires_at, name FROM api_keys WHERE id = $1', [k.id]);
    expect(new Date(stored.expires_at).toISOString()).toBe(new Date(clock.now().getTime() + 60_000).toISOString());
    expect(stored.name).toBe('graced');
    expect((await events(k.id)).map((e) => e.action)).toEqual(['key.created', 'key.rolled']);
  });

  it("answers 404 for a revoked, unknown or other user's key", async () => {
    const user = randomUUID();
    const key = await create(user, { name: 'k' });
    expect((await patch(randomUUID(), key.id, { name: 'mine' })).status).toBe(404);
    expect((await patch(user, randomUUID(), { name: 'x' })).status).toBe(404);
    await request(t.app).delete(`/api/v1/api-keys/${key.id}`).set('Authorization', auth(user)).expect(204);
    expect((await patch(user, key.id, { name: 'x' })).status).toBe(404);
  });
});
