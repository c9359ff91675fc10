import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { FixedClock } from '../fakes/fixed-clock';
import { auditVerify, firstUnchained, tamper } from '../support/audit-trail';
import { startTestApp, TestApp } from '../support/test-app';

type Event = Record<string, unknown> & { seq: number; user_id: string; key_id: string; action: string; occurred_at: string; hash: string };

let t: TestApp;
const clock = new FixedClock(new Date('2026-03-01T10:00:00.000Z'));
const alice = randomUUID();
const bob = randomUUID();
const admin = randomUUID();
let aliceKey: string;
let rolledTo: string;
let bobKey: string;
/** Every event, newest first, as an admin lists them. */
let all: Event[];

const bearer = (user: string) => `Bearer ${user === admin ? t.adminToken(admin) : t.userToken(user)}`;
const get = (user: string, query: Record<string, string | string[]> = {}) =>
  request(t.app).get('/api/v1/audit-events').query(query).set('Authorization', bearer(user));
const events = async (user: string, query: Record<string, string> = {}) => {
  const res = await get(user, query).expect(200);
  return res.body.events as Event[];
};
const exportOf = async (user: string, query: Record<string, string> = {}) => {
  const res = await get(user, query)
    .set('Accept', 'application/x-ndjson')
    .buffer(true)
    .parse((stream, done) => {
      let body = '';
      stream.on('data', (chunk: Buffer) => (body += chunk.toString()));
      stream.on('end', () => done(null, body));
    })
    .expect(200);
  expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
  const body = res.body as string;
  expect(body === '' || body.endsWith('\n')).toBe(true);
  return body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Event);
};
const step = async <T>(action: () => Promise<T>): Promise<T> => {
  const result = await action();
  clock.advance(1000);
  return result;
};

beforeAll(async () => {
  t = await startTestApp({}, clock);
  const api = (user: string) => ({
    create: (name: string) => request(t.app).post('/api/v1/api-keys').set('Authorization', bearer(user)).send({ name }).expect(201),
    patch: (id: string, body: object) =>
      request(t.app).patch(`/api/v1/api-keys/${id}`).set('Authorization', bearer(user)).send(body).expect(200),
    roll: (id: string) => request(t.app).post(`/api/v1/api-keys/${id}/roll`).set('Authorization', bearer(user)).expect(201),
    revoke: (id: string) => request(t.app).delete(`/api/v1/api-keys/${id}`).set('Authorization', bearer(user)).expect(204),
  });
  aliceKey = (await step(() => api(alice).create('deploy'))).body.id; //   1 key.created (alice)
  await step(() => api(alice).patch(aliceKey, { name: 'deploy-2' })); //   2 key.updated
  bobKey = (await step(() => api(bob).create('ci'))).body.id; //           3 key.created (bob)
  rolledTo = (await step(() => api(alice).roll(aliceKey))).body.id; //      4 key.created, 5 key.rolled (alice)
  await step(() => api(alice).revoke(rolledTo)); //                         6 key.revoked (alice)
  await step(() => api(admin).revoke(bobKey)); //                           7 key.revoked (bob's key, by the admin)
  all = await events(admin);
});
afterAll(() => t.close());

describe('GET /api/v1/audit-events', () => {
  it('lists every event newest first for an admin, in the documented shape, each hash chaining to the one before', async () => {
    expect(all.map((e) => e.seq)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(all.map((e) => e.action)).toEqual([
      'key.revoked',
      'key.revoked',
      'key.rolled',
      'key.created',
      'key.created',
      'key.updated',
      'key.created',
    ]);
    for (const event of all) {
      expect(Object.keys(event)).toEqual([
        'id',
        'seq',
        'occurred_at',
        'action',
        'actor',
        'user_id',
        'key_id',
        'target',
        'request_id',
        'ip',
        'details',
        'hash',
      ]);
      expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(event.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(typeof event.request_id).toBe('string');
    }
    expect(all[6]).toMatchObject({
      occurred_at: '2026-03-01T10:00:00.000Z',
      actor: { type: 'user', id: alice },
      user_id: alice,
      key_id: aliceKey,
      target: { type: 'api_key', id: aliceKey },
      details: { name: 'deploy', scopes: [] },
    });
    expect(all[0]).toMatchObject({ actor: { type: 'user', id: admin }, user_id: bob, key_id: bobKey });
    expect(firstUnchained([...all].reverse())).toBeNull();
  });

  it('answers with no-store and a null next_cursor when everything fits', async () => {
    const res = await get(admin).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.next_cursor).toBeNull();
  });

  it.each<[string, () => Record<string, string>, (e: Event) => boolean]>([
    ['action', () => ({ action: 'key.created' }), (e) => e.action === 'key.created'],
    ['key_id', () => ({ key_id: aliceKey }), (e) => e.key_id === aliceKey],
    ['user_id', () => ({ user_id: bob }), (e) => e.user_id === bob],
    ['since (inclusive)', () => ({ since: '2026-03-01T10:00:03.000Z' }), (e) => e.seq >= 4],
    ['until (inclusive, any zone)', () => ({ until: '2026-03-01T11:00:02+01:00' }), (e) => e.seq <= 3],
    [
      'several at once',
      () => ({ user_id: alice, action: 'key.created', since: '2026-03-01T10:00:01Z', until: '2026-03-01T10:00:05Z' }),
      (e) => e.seq === 4,
    ],
  ])('filters by %s', async (_name, query, keep) => {
    const expected = all.filter(keep).map((e) => e.seq);
    expect(expected.length).toBeGreaterThan(0);
    expect((await events(admin, query())).map((e) => e.seq)).toEqual(expected);
  });

  it('pages through with limit and next_cursor until it is null: every event once, in order', async () => {
    for (const [limit, query] of [
      [1, {}],
      [2, {}],
      [3, {}],
      [2, { user_id: alice }],
    ] as const) {
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const params: Record<string, string> = { ...query, limit: String(limit) };
        if (cursor !== null) params.cursor = cursor;
        const res: request.Response = await get(admin, params).expect(200);
        expect(res.body.events.length).toBeLessThanOrEqual(limit);
        seen.push(...(res.body.events as Event[]).map((e) => e.seq));
        cursor = res.body.next_cursor;
        expect(++pages).toBeLessThan(20);
      } while (cursor !== null);
      const expected = all.filter((e) => !('user_id' in query) || e.user_id === alice).map((e) => e.seq);
      expect(seen).toEqual(expected);
    }
  });

  it('shows a non-admin only the events about them, and answers 403 when they name another user', async () => {
    expect((await events(alice)).map((e) => e.seq)).toEqual([6, 5, 4, 2, 1]);
    expect((await events(alice, { user_id: alice })).map((e) => e.seq)).toEqual([6, 5, 4, 2, 1]);
    expect((await events(bob)).map((e) => e.seq)).toEqual([7, 3]);
    expect(await events(randomUUID())).toEqual([]);
    const res = await get(alice, { user_id: bob }).expect(403);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.stringify(res.body)).not.toContain('key.');
  });

  it('answers 401 without a token', async () => {
    await request(t.app).get('/api/v1/audit-events').expect(401);
  });

  it.each<[string, Record<string, string | string[]>, string]>([
    ['an unknown parameter', { page: '2' }, 'page'],
    ['a repeated parameter', { action: ['key.created', 'key.revoked'] }, 'action'],
    ['an unknown action', { action: 'key.exploded' }, 'action'],
    ['a bad key_id', { key_id: 'not-a-uuid' }, 'key_id'],
    ['a bad user_id', { user_id: '42' }, 'user_id'],
    ['a bad since', { since: 'yesterday' }, 'since'],
    ['an until without a time zone', { until: '2026-03-01T10:00:00' }, 'until'],
    ['since after until', { since: '2026-03-02T00:00:00Z', until: '2026-03-01T00:00:00Z' }, 'since'],
    ['limit 0', { limit: '0' }, 'limit'],
    ['limit 1001', { limit: '1001' }, 'limit'],
    ['a fractional limit', { limit: '2.5' }, 'limit'],
    ['an empty limit', { limit: '' }, 'limit'],
    ['a cursor keygate did not make', { cursor: 'garbage' }, 'cursor'],
    ['a cursor with other trailing bits than keygate writes', { cursor: 'c2VxOjF' }, 'cursor'],
    ['a cursor for seq 0', { cursor: Buffer.from('seq:0').toString('base64url') }, 'cursor'],
  ])('answers 400 naming the field for %s', async (_name, query, field) => {
    const res = await get(admin, query).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(JSON.stringify(res.body).length).toBeLessThan(2048);
  });

  it('answers 400 for a bad parameter before 403 for another user', async () => {
    await get(alice, { user_id: bob, limit: '0' }).expect(400);
  });
});

describe('the NDJSON export (Accept: application/x-ndjson)', () => {
  it('streams every event oldest first, one JSON object per line, chaining from genesis', async () => {
    const lines = await exportOf(admin);
    expect(lines).toEqual([...all].reverse());
    expect(firstUnchained(lines)).toBeNull();
  });

  it('applies the filters and the owner rule, and does not page', async () => {
    expect((await exportOf(admin, { key_id: aliceKey })).map((e) => e.seq)).toEqual([1, 2, 5]);
    expect((await exportOf(alice)).map((e) => e.seq)).toEqual([1, 2, 4, 5, 6]);
    expect((await exportOf(bob, { action: 'key.revoked' })).map((e) => e.seq)).toEqual([7]);
    expect(await exportOf(admin, { since: '2027-01-01T00:00:00Z' })).toEqual([]);
  });

  it.each<[string, string, Record<string, string>, number]>([
    ['limit', 'admin', { limit: '10' }, 400],
    ['cursor', 'admin', { cursor: 'c2VxOjM' }, 400],
    ['an unknown action', 'admin', { action: 'nope' }, 400],
    ["another user's events", 'alice', { user_id: bob }, 403],
  ])('refuses %s with a problem body, not a stream', async (_name, who, query, status) => {
    const res = await get(who === 'admin' ? admin : alice, query)
      .set('Accept', 'application/x-ndjson')
      .expect(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe('npm run audit:verify', () => {
  it('finds the chain intact, then broken at the row altered with triggers off, and at a deleted row', async () => {
    const query = (sql: string) => t.db.dataSource.query(sql);
    expect(await auditVerify(t.db.url)).toEqual({ code: 0, stdout: 'audit chain intact: 7 events\n', stderr: '' });

    // The append-only trigger refuses both, so tampering needs the owner's rights.
    await expect(query("UPDATE audit_events SET details = '{}' WHERE seq = 3")).rejects.toThrow(/append-only/);
    await expect(query('DELETE FROM audit_events WHERE seq = 3')).rejects.toThrow(/append-only/);

    const [{ details }] = await query('SELECT details::text AS details FROM audit_events WHERE seq = 3');
    await tamper(query, `UPDATE audit_events SET details = jsonb_set(details, '{name}', '"forged"') WHERE seq = 3`);
    expect(await auditVerify(t.db.url)).toEqual({ code: 1, stdout: 'audit chain broken at seq 3\n', stderr: '' });
    // The API shows the forged row, and anyone recomputing the chain from it finds the break too.
    expect(firstUnchained(await exportOf(admin))).toBe(3);

    await tamper(query, `UPDATE audit_events SET details = '${details}'::jsonb WHERE seq = 3`);
    expect((await auditVerify(t.db.url)).code).toBe(0);

    await tamper(query, 'DELETE FROM audit_events WHERE seq = 5');
    expect(await auditVerify(t.db.url)).toEqual({ code: 1, stdout: 'audit chain broken at seq 5\n', stderr: '' });
  }, 60_000);

  it('finds a deleted tail, which leaves a chain that still links', async () => {
    const query = (sql: string) => t.db.dataSource.query(sql);
    await tamper(query, 'DELETE FROM audit_events WHERE seq >= 5');
    expect(await auditVerify(t.db.url)).toEqual({ code: 1, stdout: 'audit chain broken at seq 5\n', stderr: '' });
  }, 30_000);

  it('exits 2 without DATABASE_URL, naming it', async () => {
    const run = await auditVerify('');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/DATABASE_URL is required/);
  }, 30_000);
});
