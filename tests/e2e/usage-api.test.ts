import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { TypeormUsageStore } from '../../src/adapters/persistence/tool-usage/typeorm-usage-store';
import { UsageRow } from '../../src/application/ports/usage-store.port';
import { BucketSize, emptyHistogram, latencyBucket, UsageOutcome } from '../../src/domain/usage';
import { makeKey, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

/** GET /api/v1/usage over rows written as a flush writes them (the recording has its own tests). */
let t: TestApp;
let store: TypeormUsageStore;
let key: TestKey;
let other: TestKey;
const START = new Date('2026-11-20T10:00:00.000Z');
const at = (minutes: number) => new Date(START.getTime() + minutes * 60_000);

function rows(userId: string, keyId: string | null, tool: string, outcome: UsageOutcome, minute: Date, latencies: number[]): UsageRow[] {
  const histogram = emptyHistogram();
  for (const ms of latencies) histogram[latencyBucket(ms)] += 1;
  const sum = latencies.reduce((a, b) => a + b, 0);
  return (['minute', 'hour', 'day'] as BucketSize[]).map((size) => ({
    size,
    bucketStart: new Date(
      Math.floor(minute.getTime() / { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[size]) *
        { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[size],
    ),
    userId,
    keyId,
    tool,
    outcome,
    count: latencies.length,
    latencySumMs: sum,
    histogram: [...histogram],
  }));
}

beforeAll(async () => {
  t = await startTestApp();
  store = t.container.get(TypeormUsageStore);
  key = await makeKey(t);
  other = await makeKey(t);
  await store.add([
    ...rows(key.user, key.id, 'projects', 'called', at(0), [3, 3, 3, 4]),
    ...rows(key.user, key.id, 'projects', 'called', at(1), [8]),
    ...rows(key.user, key.id, 'files__echo', 'denied', at(1), [0, 0]),
    ...rows(key.user, key.id, 'files__echo', 'upstream_error', at(70), [2500]),
    ...rows(key.user, null, 'projects', 'called', at(2), [1]),
    ...rows(other.user, other.id, 'projects', 'rate_limited', at(0), [0, 0, 0]),
  ]);
  // Additive: a second replica's flush of the same minute adds to it.
  await store.add(rows(key.user, key.id, 'projects', 'called', at(0), [3]));
});
afterAll(async () => {
  await t?.close();
});

const asUser = (user: string) => `Bearer ${t.userToken(user)}`;
const get = (auth: string, query: Record<string, string>) => request(t.app).get('/api/v1/usage').query(query).set('Authorization', auth);
const RANGE = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T12:00:00Z' };

describe('GET /api/v1/usage', () => {
  // One call of 2500 ms in the 2000–5000 ms bucket: p50 and p95 interpolate inside it.
  it('answers the caller\u2019s own usage in hour buckets, one series `all`, with the range aligned and closed_until', async () => {
    const res = await get(asUser(key.user), { from: '2026-11-20T10:20:00Z', to: '2026-11-20T11:10:00Z' }).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      bucket: 'hour',
      from: '2026-11-20T10:00:00.000Z',
      to: '2026-11-20T12:00:00.000Z',
      group_by: null,
      closed_until: expect.stringMatching(/:00\.000Z$/),
    });
    expect(res.body.series).toEqual([
      {
        group: 'all',
        total: { count: 10, p50_ms: expect.any(Number), p95_ms: expect.any(Number) },
        points: [
          { start: '2026-11-20T10:00:00.000Z', count: 9, p50_ms: expect.any(Number), p95_ms: expect.any(Number) },
          { start: '2026-11-20T11:00:00.000Z', count: 1, p50_ms: 3500, p95_ms: 4850 },
        ],
      },
    ]);
    expect(res.body.total.count).toBe(10);
  });

  it('groups by outcome, tool and key (key-less calls as `oauth`, keys with prefix and name), largest first', async () => {
    const byOutcome = await get(asUser(key.user), { ...RANGE, bucket: 'minute', group_by: 'outcome' }).expect(200);
    expect(byOutcome.body.series.map((s: any) => [s.group, s.total.count])).toEqual([
      ['called', 7],
      ['denied', 2],
      ['upstream_error', 1],
    ]);
    const called = byOutcome.body.series[0];
    expect(called.points.map((p: any) => [p.start, p.count])).toEqual([
      ['2026-11-20T10:00:00.000Z', 5],
      ['2026-11-20T10:01:00.000Z', 1],
      ['2026-11-20T10:02:00.000Z', 1],
    ]);
    // 5 calls of 3 or 4 ms in the 2–5 ms bucket: the median interpolates inside it.
    expect(called.points[0].p50_ms).toBeCloseTo(3.5, 5);
    const byTool = await get(asUser(key.user), { ...RANGE, group_by: 'tool' }).expect(200);
    expect(byTool.body.series.map((s: any) => [s.group, s.total.count])).toEqual([
      ['projects', 7],
      ['files__echo', 3],
    ]);
    const byKey = await get(asUser(key.user), { ...RANGE, group_by: 'key' }).expect(200);
    expect(byKey.body.series).toEqual([
      expect.objectContaining({
        group: key.id,
        key_prefix: expect.any(String),
        key_name: 'mcp full',
        total: expect.objectContaining({ count: 9 }),
      }),
      expect.objectContaining({ group: 'oauth', total: expect.objectContaining({ count: 1 }) }),
    ]);
    expect(byKey.body.series[1]).not.toHaveProperty('key_name');
  });

  it('filters by key and tool, and answers day buckets from the day table', async () => {
    const res = await get(asUser(key.user), { ...RANGE, key_id: key.id, tool: 'projects', bucket: 'day' }).expect(200);
    expect(res.body.from).toBe('2026-11-20T00:00:00.000Z');
    expect(res.body.to).toBe('2026-11-21T00:00:00.000Z');
    expect(res.body.total.count).toBe(6);
    expect(res.body.series[0].points).toEqual([
      { start: '2026-11-20T00:00:00.000Z', count: 6, p50_ms: expect.any(Number), p95_ms: expect.any(Number) },
    ]);
  });

  it('lets an admin read another user, and every user grouped by user', async () => {
    const admin = `Bearer ${t.adminToken()}`;
    const one = await get(admin, { ...RANGE, user_id: other.user, group_by: 'outcome' }).expect(200);
    expect(one.body.series.map((s: any) => [s.group, s.total.count])).toEqual([['rate_limited', 3]]);
    const all = await get(admin, { ...RANGE, group_by: 'user' }).expect(200);
    expect(all.body.series.map((s: any) => [s.group, s.total.count])).toEqual([
      [key.user, 10],
      [other.user, 3],
    ]);
    const theirKey = await get(admin, { ...RANGE, key_id: other.id }).expect(200);
    expect(theirKey.body.total.count).toBe(3);
  });

  it('refuses a non-admin naming another user (403), grouping by user (403), or another user\u2019s key (404)', async () => {
    await get(asUser(key.user), { user_id: other.user }).expect(403);
    await get(asUser(key.user), { group_by: 'user' }).expect(403);
    const res = await get(asUser(key.user), { key_id: other.id }).expect(404);
    expect(JSON.stringify(res.body)).not.toContain(other.user);
    await get(asUser(key.user), { key_id: randomUUID() }).expect(404);
  });

  it.each([
    [{ bucket: 'week' }, 'bucket'],
    [{ group_by: 'day' }, 'group_by'],
    [{ from: 'yesterday' }, 'from'],
    [{ to: '2026-11-20' }, 'to'],
    [{ key_id: 'nope' }, 'key_id'],
    [{ user_id: 'nope' }, 'user_id'],
    [{ from: '2026-11-20T12:00:00Z', to: '2026-11-20T12:00:00Z' }, 'from'],
    [{ from: '2026-11-19T00:00:00Z', to: '2026-11-20T00:00:01Z', bucket: 'minute' }, 'from'],
    [{ limit: '5' }, 'limit'],
  ])('answers 400 for %j naming %s', async (query, field) => {
    const res = await get(asUser(key.user), query as Record<string, string>).expect(400);
    expect(JSON.stringify(res.body)).toContain(field);
  });

  it('answers 400 for a repeated parameter and 401 without a token', async () => {
    await request(t.app).get('/api/v1/usage?tool=a&tool=b').set('Authorization', asUser(key.user)).expect(400);
    await request(t.app).get('/api/v1/usage').expect(401);
  });

  it('accepts 1440 minutes exactly', async () => {
    await get(asUser(key.user), { from: '2026-11-19T10:00:00Z', to: '2026-11-20T10:00:00Z', bucket: 'minute' }).expect(200);
  });
});
