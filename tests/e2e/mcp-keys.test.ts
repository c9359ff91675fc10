import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { FixedClock } from '../fakes/fixed-clock';
import { startTestApp, TestApp } from '../support/test-app';

let t: TestApp;
const clock = new FixedClock(new Date());
beforeAll(async () => {
  t = await startTestApp({}, clock);
});
afterAll(() => t.close());

const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

async function newKey(body: Record<string, unknown> = {}, user = randomUUID()) {
  const res = await request(t.app)
    .post('/api/v1/api-keys')
    .set('Authorization', `Bearer ${t.userToken(user)}`)
    .send({ name: 'mcp', ...body })
    .expect(201);
  return { id: res.body.id as string, raw: res.body.raw_key as string, user };
}

const toolsWith = (headers: Record<string, string>) => request(t.app).post('/mcp').set(headers).send(TOOLS_LIST);

function expect401(res: request.Response) {
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  expect(res.body.type).toBe('urn:keygate:problem:invalid-api-key');
}

describe('API keys on POST /mcp', () => {
  it('lists only the tools the scopes allow, with the key in either header', async () => {
    const key = await newKey({ scopes: ['projects:read', 'agents:write'] });
    for (const headers of [{ Authorization: `Bearer ${key.raw}` }, { 'X-API-Key': key.raw }] as Record<string, string>[]) {
      const res = await toolsWith(headers).expect(200);
      expect(res.body.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(['agents', 'projects']);
    }
  });

  it('shows every built-in tool to a key with no scopes (full access)', async () => {
    const key = await newKey();
    const res = await toolsWith({ 'X-API-Key': key.raw }).expect(200);
    expect(res.body.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual([
      'agents',
      'chat',
      'mcp_servers',
      'models',
      'projects',
      'routines',
    ]);
  });

  it('sets last_used_at to the current time on a successful use', async () => {
    const key = await newKey();
    await toolsWith({ 'X-API-Key': key.raw }).expect(200);
    await t.flushLastUsed();
    const [row] = await t.db.dataSource.query('SELECT last_used_at FROM api_keys WHERE id = $1', [key.id]);
    expect(new Date(row.last_used_at).getTime()).toBe(clock.now().getTime());
  });

  it('answers 401 with one body for missing, malformed, unknown, revoked and expired keys', async () => {
    const revoked = await newKey();
    await request(t.app)
      .delete(`/api/v1/api-keys/${revoked.id}`)
      .set('Authorization', `Bearer ${t.userToken(revoked.user)}`)
      .expect(204);
    const expiring = await newKey({ expires_at: new Date(clock.now().getTime() + 60_000).toISOString() });
    await toolsWith({ 'X-API-Key': expiring.raw }).expect(200);
    clock.advance(120_000);
    const bodies = [];
    for (const headers of [
      {},
      { 'X-API-Key': 'svc_short' },
      { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      { 'X-API-Key': `svc_${'0'.repeat(64)}` },
      { 'X-API-Key': revoked.raw },
      { 'X-API-Key': expiring.raw },
    ] as Record<string, string>[]) {
      const res = await toolsWith(headers);
      expect401(res);
      bodies.push(res.body);
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
  });

  it('answers 401 when both headers carry different keys, and accepts the same key twice', async () => {
    const a = await newKey();
    const b = await newKey();
    expect401(await toolsWith({ Authorization: `Bearer ${a.raw}`, 'X-API-Key': b.raw }));
    await toolsWith({ Authorization: `Bearer ${a.raw}`, 'X-API-Key': a.raw }).expect(200);
  });

  it('authenticates before reading the body', async () => {
    const res = await request(t.app).post('/mcp').set('Content-Type', 'application/json').send('{not json');
    expect401(res);
  });
});
