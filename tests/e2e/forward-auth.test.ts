import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { makeKey, rpc, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';

const UNKNOWN_KEY = `svc_${'0'.repeat(64)}`;
const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

let t: TestApp;
// The proxy's X-Forwarded-For names the client, so each test's failures are its own address's.
beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: 'loopback' });
});
afterAll(() => t.close());

let nextClient = 1;
const freshClient = () => `203.0.113.${nextClient++}`;

function authz(headers: Record<string, string> = {}, path = '/authz', client = freshClient()) {
  return request(t.app).get(path).set('X-Forwarded-For', client).set(headers);
}

const bearer = (key: TestKey | string) => ({ Authorization: `Bearer ${typeof key === 'string' ? key : key.raw}` });

function expectNoIdentity(res: request.Response): void {
  expect(res.headers['x-keygate-user-id']).toBeUndefined();
  expect(res.headers['x-keygate-key-id']).toBeUndefined();
  expect(res.headers['x-keygate-scopes']).toBeUndefined();
}

async function createKey(fields: Record<string, unknown>, user = randomUUID()): Promise<TestKey> {
  const res = await request(t.app)
    .post('/api/v1/api-keys')
    .set('Authorization', `Bearer ${t.userToken(user)}`)
    .send({ name: 'forward auth', ...fields })
    .expect(201);
  return { id: res.body.id, raw: res.body.raw_key, user };
}

describe('GET /authz', () => {
  let reader: TestKey;
  let full: TestKey;
  beforeAll(async () => {
    reader = await makeKey(t, ['projects:write', 'chat:read']);
    full = await makeKey(t, []);
  });

  it('allows a valid key with 200, an empty body and the user, key and granted scopes', async () => {
    const res = await authz(bearer(reader)).expect(200);
    expect(res.text).toBe('');
    expect(res.headers['content-length']).toBe('0');
    expect(res.headers['x-keygate-user-id']).toBe(reader.user);
    expect(res.headers['x-keygate-key-id']).toBe(reader.id);
    // A :write brings its :read, so a membership test downstream agrees with the scope rules.
    expect(res.headers['x-keygate-scopes']).toBe('projects:read,projects:write,chat:read');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('reads the key from X-API-Key as well', async () => {
    const res = await authz({ 'X-API-Key': reader.raw }).expect(200);
    expect(res.headers['x-keygate-key-id']).toBe(reader.id);
  });

  it('names a full-access key\'s scopes "*"', async () => {
    const res = await authz({ ...bearer(full), 'X-Keygate-Required-Scope': 'models:write' }).expect(200);
    expect(res.headers['x-keygate-scopes']).toBe('*');
    expect(res.headers['x-keygate-user-id']).toBe(full.user);
  });

  it('checks the required scope from the header and from the query, :write granting :read', async () => {
    await authz({ ...bearer(reader), 'X-Keygate-Required-Scope': 'projects:read' }).expect(200);
    await authz(bearer(reader), '/authz?scope=projects:write').expect(200);
    await authz({ ...bearer(reader), 'X-Keygate-Required-Scope': 'chat:read' }, '/authz?scope=chat:read').expect(200);
  });

  it('refuses a scope the key lacks with 403, an insufficient_scope challenge and no identity', async () => {
    for (const res of [
      await authz({ ...bearer(reader), 'X-Keygate-Required-Scope': 'chat:write' }).expect(403),
      await authz(bearer(reader), '/authz?scope=chat:write').expect(403),
    ]) {
      expect(res.text).toBe('');
      expect(res.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="chat:write"');
      expectNoIdentity(res);
    }
  });

  it('refuses a missing, unknown, malformed or doubled key with 401 and a Bearer challenge', async () => {
    const missing = await authz().expect(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="keygate"');
    for (const headers of [
      bearer(UNKNOWN_KEY),
      bearer('svc_short'),
      { 'X-API-Key': 'nonsense' },
      { ...bearer(reader), 'X-API-Key': full.raw },
    ]) {
      const res = await authz(headers).expect(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="keygate", error="invalid_token"');
      expect(res.text).toBe('');
      expectNoIdentity(res);
    }
  });

  it('checks the key before the scope: no key and a scope it would lack is still 401', async () => {
    await authz({ 'X-Keygate-Required-Scope': 'chat:write' }).expect(401);
  });

  it('refuses a revoked key with 401 at once', async () => {
    const key = await makeKey(t, ['projects:read']);
    await authz(bearer(key)).expect(200); // now cached
    await request(t.app)
      .delete(`/api/v1/api-keys/${key.id}`)
      .set('Authorization', `Bearer ${t.userToken(key.user)}`)
      .expect(204);
    const res = await authz(bearer(key)).expect(401);
    expectNoIdentity(res);
  });

  it('answers HEAD, POST and the methods and sub-paths Envoy forwards with the same status and headers', async () => {
    const get = await authz(bearer(reader)).expect(200);
    const head = await request(t.app).head('/authz').set(bearer(reader)).expect(200);
    const post = await request(t.app).post('/authz').set(bearer(reader)).send('ignored body').expect(200);
    const envoy = await request(t.app).delete('/authz/api/projects/7?x=1').set(bearer(reader)).expect(200);
    for (const res of [head, post, envoy]) {
      for (const name of ['x-keygate-user-id', 'x-keygate-key-id', 'x-keygate-scopes', 'cache-control'])
        expect(res.headers[name]).toBe(get.headers[name]);
      expect(res.text ?? '').toBe('');
    }
    const headDenied = await request(t.app).head('/authz?scope=chat:write').set(bearer(reader)).expect(403);
    expect(headDenied.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="chat:write"');
    const headNoKey = await request(t.app).head('/authz').set('X-Forwarded-For', freshClient()).expect(401);
    expect(headNoKey.headers['www-authenticate']).toBe('Bearer realm="keygate"');
  });

  describe('a required scope keygate cannot honour is 400, before the key is looked at', () => {
    it.each([
      ['an unknown scope name', { 'X-Keygate-Required-Scope': 'project:read' }, '/authz'],
      ['an unknown query scope', {}, '/authz?scope=projects:admin'],
      ['two scopes in the header', { 'X-Keygate-Required-Scope': 'projects:read,chat:read' }, '/authz'],
      ['the query scope twice', {}, '/authz?scope=projects:read&scope=chat:read'],
      ['an empty query scope', {}, '/authz?scope='],
      ['query and header disagreeing', { 'X-Keygate-Required-Scope': 'chat:read' }, '/authz?scope=projects:read'],
      ['a NUL in the query scope', {}, '/authz?scope=projects%00:read'],
      ['a malformed escape in the query scope', {}, '/authz?scope=%ff'],
      ['an 8 KiB header scope', { 'X-Keygate-Required-Scope': `projects:${'r'.repeat(8192)}` }, '/authz'],
    ])('%s', async (_case, headers, path) => {
      await t.flushLastUsed();
      const before = await lastUsedOf(reader.id);
      const res = await authz({ ...bearer(reader), ...headers }, path).expect(400);
      expect(res.text).toBe('');
      expectNoIdentity(res);
      await t.flushLastUsed();
      expect(await lastUsedOf(reader.id)).toEqual(before);
    });
  });

  it("counts each call against the key's rate limit, 403s included, and answers 429 with Retry-After past it", async () => {
    const key = await createKey({ scopes: ['projects:read'], rate_limit: { limit: 3, window_seconds: 86400 } });
    const first = await authz(bearer(key)).expect(200);
    expect(first.headers['ratelimit-policy']).toBe('"key";q=3;w=86400');
    expect(first.headers.ratelimit).toMatch(/^"key";r=2;t=\d+$/);
    await authz(bearer(key), '/authz?scope=chat:read').expect(403);
    await request(t.app).head('/authz').set(bearer(key)).expect(200);
    const limited = await authz(bearer(key)).expect(429);
    expect(limited.text).toBe('');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers.ratelimit).toMatch(/^"key";r=0;t=\d+$/);
    expectNoIdentity(limited);
    // /authz and /mcp count against one window.
    expect((await rpc(t, key, TOOLS_LIST)).status).toBe(429);
  });

  it('spends no quota: a key whose quota is used up still passes, while its tools/call is refused', async () => {
    const key = await createKey({ quota: { remaining: 0, refill: null } });
    for (let i = 0; i < 3; i += 1) await authz(bearer(key)).expect(200);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'projects', arguments: { action: 'list' } } };
    expect((await rpc(t, key, call)).status).toBe(429);
  });

  it('moves last_used_at, as a use of the key', async () => {
    const key = await makeKey(t, []);
    expect(await lastUsedOf(key.id)).toBeNull();
    await authz(bearer(key)).expect(200);
    await t.flushLastUsed();
    expect(await lastUsedOf(key.id)).toBeInstanceOf(Date);
  });

  it('shares the failed-validation limit with /mcp, per client address, which still serves a key the cache validates', async () => {
    const client = freshClient();
    await authz(bearer(reader), '/authz', client).expect(200);
    for (let i = 0; i < 20; i += 1) await authz(bearer(UNKNOWN_KEY), '/authz', client).expect(401);
    const refused = await authz(bearer(UNKNOWN_KEY), '/authz', client).expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.text).toBe('');
    expect((await rpc(t, { ...reader, raw: UNKNOWN_KEY }, TOOLS_LIST, { 'X-Forwarded-For': client })).status).toBe(429);
    // The limit slows guessing, not valid keys (issue 24 row 7).
    await authz(bearer(reader), '/authz', client).expect(200);
    expect((await rpc(t, reader, TOOLS_LIST, { 'X-Forwarded-For': client })).status).toBe(200);
    // Another client behind the same proxy is not held back.
    await authz(bearer(UNKNOWN_KEY)).expect(401);
  });

  it('serves a cached key without reading PostgreSQL, and is counted in /metrics', async () => {
    const key = await makeKey(t, ['projects:read']);
    await authz(bearer(key)).expect(200);
    const hits = async () =>
      Number(/keygate_key_cache_lookups_total\{result="hit"\} (\d+)/.exec((await request(t.app).get('/metrics')).text)![1]);
    const before = await hits();
    await authz(bearer(key)).expect(200);
    expect(await hits()).toBe(before + 1);
    const text = (await request(t.app).get('/metrics')).text;
    expect(text).toMatch(/keygate_http_requests_total\{method="GET",route="\/authz",status="200"\} \d+/);
    expect(text).toMatch(/keygate_http_requests_total\{method="GET",route="\/authz",status="401"\} \d+/);
    expect(text).toMatch(/keygate_http_requests_total\{method="GET",route="\/authz",status="403"\} \d+/);
    // Envoy's sub-paths share the one series.
    expect(text).not.toContain('/authz/api');
  });
});

async function lastUsedOf(id: string): Promise<Date | null> {
  const [row] = await t.db.dataSource.query('SELECT last_used_at FROM api_keys WHERE id = $1', [id]);
  return row.last_used_at;
}
