import request from 'supertest';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { makeKey, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';

const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const UNKNOWN_KEY = `svc_${'0'.repeat(64)}`;

let t: TestApp;
let logs = '';
beforeAll(async () => {
  t = await startTestApp({}, undefined, { logger: createLogger('info', { write: (line: string) => void (logs += line) }) });
});
afterAll(() => t.close());

const mcp = (headers: Record<string, string>) =>
  request(t.app).post('/mcp').set('Accept', 'application/json, text/event-stream').set(headers).send(TOOLS_LIST);

interface LogLine {
  level: number;
  msg: string;
  route?: string;
  req?: { id: string; method: string; path: string };
  res?: { statusCode: number };
}

const logLines = (): LogLine[] =>
  logs
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as LogLine);

describe('request logs', () => {
  let key: TestKey;
  let jwt: string;

  beforeAll(async () => {
    key = await makeKey(t, ['projects:read']);
    jwt = t.userToken(key.user);
    await mcp({ 'X-API-Key': key.raw }).expect(200);
    await mcp({ Authorization: `Bearer ${key.raw}` }).expect(200);
    await mcp({ 'X-API-Key': UNKNOWN_KEY }).expect(401);
    await request(t.app).get('/api/v1/api-keys').set('Authorization', `Bearer ${jwt}`).set('X-Request-Id', 'trace-42').expect(200);
    // Not a key id: refused (400), and the request line still must not show it.
    await request(t.app).get(`/api/v1/api-keys/${key.raw}`).set('Authorization', `Bearer ${jwt}`).expect(400);
  });

  it('never contain a raw key, its secret part or a JWT', () => {
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(key.raw);
    expect(logs).not.toContain(key.raw.slice('svc_'.length));
    expect(logs).not.toContain(UNKNOWN_KEY);
    expect(logs).not.toContain(jwt);
    for (const part of jwt.split('.')) expect(logs).not.toContain(part);
  });

  it('are one JSON object per line, one per request, with the request id, route and status', () => {
    const lines = logLines().filter((line) => line.msg === 'request completed');
    expect(lines.map((line) => [line.req?.method, line.route, line.res?.statusCode])).toEqual([
      ['POST', '/api/v1/api-keys', 201],
      ['POST', '/mcp', 200],
      ['POST', '/mcp', 200],
      ['POST', '/mcp', 401],
      ['GET', '/api/v1/api-keys', 200],
      ['GET', '/api/v1/api-keys/:id', 400],
    ]);
    for (const line of lines) expect(line.req?.id).toMatch(/^[0-9a-f-]{36}$|^trace-42$/);
    expect(lines.find((line) => line.req?.id === 'trace-42')?.req?.path).toBe('/api/v1/api-keys');
    expect(lines[5].req?.path).toBe('/api/v1/api-keys/svc_[redacted]');
  });
});

describe('request ids', () => {
  it('echoes a sane incoming X-Request-Id', async () => {
    const res = await request(t.app).get('/healthz').set('X-Request-Id', 'abc-123').expect(200);
    expect(res.headers['x-request-id']).toBe('abc-123');
  });

  it('replaces one that is not a sane token with a fresh UUID', async () => {
    for (const id of ['has spaces', 'x'.repeat(200), UNKNOWN_KEY]) {
      const res = await request(t.app).get('/healthz').set('X-Request-Id', id).expect(200);
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
  });

  it('generates one when none is sent, different per request', async () => {
    const [a, b] = await Promise.all([request(t.app).get('/healthz'), request(t.app).get('/healthz')]);
    expect(a.headers['x-request-id']).toBeDefined();
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
});

describe('GET /metrics', () => {
  let text: string;
  let key: TestKey;

  beforeAll(async () => {
    const fresh = await startTestApp();
    try {
      key = await makeKey(fresh, []);
      const jwt = fresh.userToken(key.user);
      const mcpOn = (headers: Record<string, string>) =>
        request(fresh.app).post('/mcp').set('Accept', 'application/json, text/event-stream').set(headers).send(TOOLS_LIST);
      await mcpOn({ 'X-API-Key': key.raw }).expect(200);
      await mcpOn({ Authorization: `Bearer ${key.raw}` }).expect(200);
      await mcpOn({ 'X-API-Key': UNKNOWN_KEY }).expect(401);
      await mcpOn({}).expect(401);
      await request(fresh.app).get('/api/v1/api-keys').expect(401);
      await request(fresh.app).delete(`/api/v1/api-keys/${key.id}`).set('Authorization', `Bearer ${jwt}`).expect(204);
      await request(fresh.app).delete(`/api/v1/api-keys/${key.id}`).set('Authorization', `Bearer ${jwt}`).expect(404);
      await request(fresh.app).get('/no/such/route').expect(404);
      await fresh.flushLastUsed();
      const res = await request(fresh.app).get('/metrics').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      text = res.text;
    } finally {
      await fresh.close();
    }
  });

  it('counts cache hits and misses and last_used_at batches', () => {
    // The first valid use misses and fills the cache, the second hits; an unknown key always misses.
    expect(text).toContain('keygate_key_cache_lookups_total{result="hit"} 1');
    expect(text).toContain('keygate_key_cache_lookups_total{result="miss"} 2');
    expect(text).toContain('keygate_last_used_flush_batches_total 1');
  });

  it('counts requests by method, route pattern and status', () => {
    expect(text).toContain('keygate_http_requests_total{method="POST",route="/api/v1/api-keys",status="201"} 1');
    expect(text).toContain('keygate_http_requests_total{method="POST",route="/mcp",status="200"} 2');
    expect(text).toContain('keygate_http_requests_total{method="POST",route="/mcp",status="401"} 2');
    expect(text).toContain('keygate_http_requests_total{method="GET",route="/api/v1/api-keys",status="401"} 1');
    expect(text).toContain('keygate_http_requests_total{method="DELETE",route="/api/v1/api-keys/:id",status="204"} 1');
    // The 404 is thrown inside the router; the pattern must survive the error leaving it.
    expect(text).toContain('keygate_http_requests_total{method="DELETE",route="/api/v1/api-keys/:id",status="404"} 1');
    expect(text).toContain('keygate_http_requests_total{method="GET",route="unmatched",status="404"} 1');
  });

  it('never labels a series with an id from the URL', () => {
    expect(text).not.toContain(key.id);
    expect(text).not.toContain('/no/such/route');
  });

  it('has latency histograms per route and status', () => {
    expect(text).toContain('keygate_http_request_duration_seconds_bucket{le="0.005",method="POST",route="/mcp",status="200"}');
    expect(text).toMatch(/keygate_http_request_duration_seconds_count\{method="POST",route="\/mcp",status="200"\} 2\n/);
  });

  it('counts key validations by outcome', () => {
    expect(text).toContain('keygate_key_validations_total{outcome="valid"} 2');
    expect(text).toContain('keygate_key_validations_total{outcome="invalid"} 2');
    expect(text).toContain('keygate_key_validations_total{outcome="error"} 0');
  });

  it('declares the cache and flush counters', () => {
    expect(text).toContain('# TYPE keygate_key_cache_lookups_total counter');
    expect(text).toContain('# TYPE keygate_last_used_flush_batches_total counter');
  });
});

describe('credentials percent-encoded in a path', () => {
  it('are masked in the request line like plain ones (decoded first)', async () => {
    const key = await makeKey(t, ['projects:read']);
    const jwt = t.userToken(key.user);
    const secret = key.raw.slice('svc_'.length);
    const from = logs.length;
    const paths = [
      `/api/v1/api-keys/%73vc_${secret}`,
      `/api/v1/api-keys/%2573VC%5F${secret}`,
      `/api/v1/api-keys/${key.raw.replace(/[0-9]/g, (d) => `%3${d}`)}`,
      `/api/v1/api-keys/${jwt.replace(/\./g, '%2E')}`,
      `/api/v1/api-keys/%65${jwt.slice(1)}`,
    ];
    for (const path of paths) await request(t.app).get(path).set('Authorization', `Bearer ${jwt}`).expect(400);
    const lines = () =>
      logs
        .slice(from)
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LogLine)
        .filter((line) => line.req?.method === 'GET');
    while (lines().length < paths.length) await new Promise((r) => setTimeout(r, 5));

    const written = logs.slice(from);
    expect(written).not.toContain(secret);
    expect(written.toLowerCase()).not.toContain(secret.slice(0, 16));
    for (const part of jwt.split('.')) expect(written).not.toContain(part);
    expect(lines().map((line) => line.req?.path)).toEqual([
      '/api/v1/api-keys/svc_[redacted]',
      '/api/v1/api-keys/svc_[redacted]',
      '/api/v1/api-keys/svc_[redacted]',
      '/api/v1/api-keys/[redacted-jwt]',
      '/api/v1/api-keys/[redacted-jwt]',
    ]);
  });
});

describe('a key secret without svc_ (64 hex digits)', () => {
  it('is masked in the logged path and request id, and the query string never reaches a log', async () => {
    const key = await makeKey(t, ['projects:read']);
    const jwt = t.userToken(key.user);
    const secret = key.raw.slice('svc_'.length);
    const from = logs.length;
    const requests = [
      request(t.app).get(`/api/v1/api-keys/${secret}`).set('Authorization', `Bearer ${jwt}`).expect(400),
      request(t.app).get(`/api/v1/api-keys/${secret.toUpperCase()}`).set('Authorization', `Bearer ${jwt}`).expect(400),
      request(t.app).get(`/api/v1/api-keys?x=${secret}`).set('Authorization', `Bearer ${jwt}`).expect(400),
      request(t.app).get(`/no/such/route/${secret}?x=${secret}`).expect(404),
      // Sent as a request id, it is replaced (a fresh UUID is logged instead).
      request(t.app).get('/api/v1/scopes').set('Authorization', `Bearer ${jwt}`).set('X-Request-Id', secret).expect(200),
    ];
    for (const sent of requests) await sent;
    const lines = () =>
      logs
        .slice(from)
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LogLine);
    while (lines().length < requests.length) await new Promise((r) => setTimeout(r, 5));

    const written = logs.slice(from);
    expect(written).not.toMatch(/[0-9a-f]{64}/i);
    expect(lines().map((line) => line.req?.path)).toEqual([
      '/api/v1/api-keys/[redacted-hex]',
      '/api/v1/api-keys/[redacted-hex]',
      '/api/v1/api-keys',
      '/no/such/route/[redacted-hex]',
      '/api/v1/scopes',
    ]);
    expect(lines()[4].req?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
});
