import http from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { createHttpServer } from '../../src/infrastructure/server/http-server';
import { makeKey, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';

const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const UNKNOWN_KEY = `svc_${'0'.repeat(64)}`;

// Behind a proxy on loopback (supertest's), X-Forwarded-For names the client, so one app plays many clients.
let t: TestApp;
let key: TestKey;
beforeAll(async () => {
  t = await startTestApp({ AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW_SECONDS: '60', TRUST_PROXY: 'loopback' });
  key = await makeKey(t);
});
afterAll(() => t.close());

const mcpFrom = (client: string, rawKey: string, app = t.app) =>
  request(app)
    .post('/mcp')
    .set('X-Forwarded-For', client)
    .set('Accept', 'application/json, text/event-stream')
    .set('X-API-Key', rawKey)
    .send(TOOLS_LIST);

const validations = async (outcome: string) => {
  const metrics = await request(t.app).get('/metrics').expect(200);
  return Number(new RegExp(`keygate_key_validations_total\\{outcome="${outcome}"\\} (\\d+)`).exec(metrics.text)![1]);
};

describe('failed key validations per client address on /mcp', () => {
  it('answers 429 with Retry-After and a problem body once the limit is used up, without validating', async () => {
    for (let i = 0; i < 3; i++) await mcpFrom('198.51.100.1', UNKNOWN_KEY).expect(401);
    const invalidBefore = await validations('invalid');

    const res = await mcpFrom('198.51.100.1', UNKNOWN_KEY).expect(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(59);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ type: 'urn:keygate:problem:too-many-requests', status: 429, title: 'Too Many Requests' });
    // Refused unchecked, even a valid key this replica has not cached yet: telling it apart would take a lookup.
    await mcpFrom('198.51.100.1', key.raw).expect(429);
    expect(await validations('invalid')).toBe(invalidBefore);
  });

  it('lets a key through that validates from the cache, and still refuses every other key unchecked', async () => {
    const valid = await makeKey(t);
    const revoked = await makeKey(t);
    await mcpFrom('198.51.100.5', valid.raw).expect(200);
    await mcpFrom('198.51.100.5', revoked.raw).expect(200);
    await request(t.app)
      .delete(`/api/v1/api-keys/${revoked.id}`)
      .set('Authorization', `Bearer ${t.userToken(revoked.user)}`)
      .expect(204);
    for (let i = 0; i < 3; i++) await mcpFrom('198.51.100.5', UNKNOWN_KEY).expect(401);
    const invalidBefore = await validations('invalid');

    await mcpFrom('198.51.100.5', valid.raw).expect(200);
    const withBearer = request(t.app)
      .post('/mcp')
      .set('X-Forwarded-For', '198.51.100.5')
      .set('Accept', 'application/json, text/event-stream');
    await withBearer.set('Authorization', `Bearer ${valid.raw}`).send(TOOLS_LIST).expect(200);
    // The last character changed (a key that ends in 0 made "tampered" the valid key itself, one run in 16).
    const tampered = `${valid.raw.slice(0, -1)}${valid.raw.endsWith('0') ? '1' : '0'}`;
    for (const other of [UNKNOWN_KEY, revoked.raw, tampered, 'not-a-key']) await mcpFrom('198.51.100.5', other).expect(429);
    expect(await validations('invalid')).toBe(invalidBefore);
  });

  it('limits each address on its own', async () => {
    for (let i = 0; i < 3; i++) await mcpFrom('198.51.100.2', UNKNOWN_KEY).expect(401);
    await mcpFrom('198.51.100.2', UNKNOWN_KEY).expect(429);
    await mcpFrom('198.51.100.3', UNKNOWN_KEY).expect(401);
  });

  it('counts a whole IPv6 /64 as one client', async () => {
    for (let i = 1; i <= 3; i++) await mcpFrom(`2001:db8:aa:bb::${i}`, UNKNOWN_KEY).expect(401);
    await mcpFrom('2001:db8:aa:bb:ffff::9', UNKNOWN_KEY).expect(429);
    await mcpFrom('2001:db8:aa:bc::1', UNKNOWN_KEY).expect(401);
  });

  it('never limits successful validations', async () => {
    for (let i = 0; i < 10; i++) await mcpFrom('198.51.100.4', key.raw).expect(200);
    for (let i = 0; i < 3; i++) await mcpFrom('198.51.100.4', UNKNOWN_KEY).expect(401);
  });

  it('does not limit the REST API', async () => {
    for (let i = 0; i < 5; i++) {
      await request(t.app).get('/api/v1/api-keys').set('X-Forwarded-For', '198.51.100.1').set('Authorization', 'Bearer nope').expect(401);
    }
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY says the proxy is trusted', async () => {
    const direct = await startTestApp({ AUTH_FAILURE_LIMIT: '2' });
    try {
      await mcpFrom('203.0.113.1', UNKNOWN_KEY, direct.app).expect(401);
      await mcpFrom('203.0.113.2', UNKNOWN_KEY, direct.app).expect(401);
      await mcpFrom('203.0.113.3', UNKNOWN_KEY, direct.app).expect(429);
    } finally {
      await direct.close();
    }
  });
});

describe('helmet on the REST API', () => {
  it('sets its headers on answers and errors under /api/v1', async () => {
    const ok = await request(t.app).get('/api/v1/scopes').set('Authorization', `Bearer ${t.userToken()}`).expect(200);
    const denied = await request(t.app).get('/api/v1/api-keys').expect(401);
    for (const res of [ok, denied]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    }
  });
});

describe('request size limits', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    const served = createHttpServer({ maxHeaderBytes: 16 * 1024 });
    served.serve(t.app);
    server = served.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const statusWithHeader = (bytes: number) =>
    new Promise<number>((resolve, reject) => {
      const req = http.get({ port, host: '127.0.0.1', path: '/healthz', headers: { 'X-Padding': 'x'.repeat(bytes) } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
    });

  it('answers 431 to headers over MAX_HEADER_BYTES and serves those under it', async () => {
    expect(await statusWithHeader(8 * 1024)).toBe(200);
    expect(await statusWithHeader(20 * 1024)).toBe(431);
  });

  it('answers 413 to a REST body over 64 KiB', async () => {
    const res = await request(t.app)
      .post('/api/v1/api-keys')
      .set('Authorization', `Bearer ${t.userToken()}`)
      .send({ name: 'x'.repeat(70 * 1024) })
      .expect(413);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe('the default failure limit (issue 24 row 7)', () => {
  it('after 20 failures still serves a valid key on /mcp, while an invalid one is 429', async () => {
    const fresh = await startTestApp({ TRUST_PROXY: 'loopback' });
    try {
      const valid = await makeKey(fresh);
      await mcpFrom('192.0.2.7', valid.raw, fresh.app).expect(200);
      for (let i = 0; i < 20; i++) await mcpFrom('192.0.2.7', UNKNOWN_KEY, fresh.app).expect(401);
      await mcpFrom('192.0.2.7', UNKNOWN_KEY, fresh.app).expect(429);
      const res = await mcpFrom('192.0.2.7', valid.raw, fresh.app).expect(200);
      expect(res.text).toContain('"tools"');
      await mcpFrom('192.0.2.7', `svc_${'1'.repeat(64)}`, fresh.app).expect(429);
    } finally {
      await fresh.close();
    }
  });
});
