import request from 'supertest';
import { call, makeKey, TestKey } from '../support/mcp-keys';
import { secondReplica, startTwoReplicas, TwoReplicas } from '../support/app-replicas';
import { eventually } from '../support/replica';

jest.setTimeout(90_000);

/**
 * Two replicas on one database, each with its own tally and flusher: after a
 * load spread over both, every bucket size holds exactly the calls made,
 * per tool and outcome (additive upserts, no read-modify-write).
 */
let replicas: TwoReplicas;
beforeAll(async () => {
  replicas = await startTwoReplicas({ USAGE_FLUSH_INTERVAL_MS: '200' });
});
afterAll(async () => {
  await replicas?.close();
});

const CALLS_PER_KIND = 40;

function mcp(url: string, key: TestKey, body: unknown) {
  return request(url)
    .post('/mcp')
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream')
    .set('Authorization', `Bearer ${key.raw}`)
    .send(JSON.stringify(body));
}

async function series(key: TestKey, bucket: string): Promise<Record<string, number>> {
  const t = replicas.a;
  const res = await request(t.app)
    .get('/api/v1/usage')
    .query({ bucket, group_by: 'outcome', tool: 'projects', from: new Date(Date.now() - 3_600_000).toISOString() })
    .set('Authorization', `Bearer ${t.userToken(key.user)}`)
    .expect(200);
  return Object.fromEntries(res.body.series.map((s: any) => [s.group, s.total.count]));
}

it('sums exactly across replicas in minute, hour and day buckets', async () => {
  const t = replicas.a;
  const user = (await makeKey(t)).user;
  const full = await makeKey(t, [], user);
  const reader = await makeKey(t, ['projects:read'], user);
  const urls = [replicas.aUrl, replicas.b.url];
  const work: Promise<unknown>[] = [];
  for (let n = 0; n < CALLS_PER_KIND; n += 1) {
    const url = urls[n % 2];
    work.push(mcp(url, full, call(n, 'projects', { action: 'list' })).expect(200));
    work.push(mcp(url, reader, call(n, 'projects', { action: 'create', data: { name: `p${n}` } })).expect(403));
  }
  await Promise.all(work);
  const expected = { called: CALLS_PER_KIND, denied: CALLS_PER_KIND };
  const exact = async (bucket: string) => JSON.stringify(await series(full, bucket)) === JSON.stringify(expected);
  await eventually(() => exact('minute'), 20_000, 100);
  for (const bucket of ['minute', 'hour', 'day']) expect(await series(full, bucket)).toEqual(expected);
  // Later flushes add nothing more: each call was counted once.
  await new Promise((resolve) => setTimeout(resolve, 600));
  for (const bucket of ['minute', 'hour', 'day']) expect(await series(full, bucket)).toEqual(expected);
});

it('writes what a replica counted since its last flush when it stops', async () => {
  const t = replicas.a;
  const key = await makeKey(t);
  const idle = await secondReplica(t, { USAGE_FLUSH_INTERVAL_MS: '60000' });
  await mcp(idle.url, key, call(1, 'projects', { action: 'list' })).expect(200);
  await idle.close();
  expect(await series(key, 'minute')).toEqual({ called: 1 });
});
