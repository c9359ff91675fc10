import request from 'supertest';
import { makeKey, recordCount, rpc, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Hardening issue, row 6 (and the depth rule of row 1): text PostgreSQL cannot
 * store and JSON nested too deep are a 400 or -32602 naming the field, and
 * nothing is written; they used to be 500s and -32603s.
 */
let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = t.adminToken();
});
afterAll(() => t.close());

const as = (token: string) => ({
  get: (path: string) => request(t.app).get(path).set('Authorization', `Bearer ${token}`).expect(200),
  post: (path: string, body: string) =>
    request(t.app).post(path).set('Authorization', `Bearer ${token}`).set('Content-Type', 'application/json').send(body),
});

/** JSON text in which `\u0000` and `\ud800` stay escapes, as a client would send them. */
const UNSTORABLE = [
  ['a NUL', 'a\\u0000b'],
  ['a lone surrogate', 'a\\ud800b'],
];
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe.each(UNSTORABLE)('REST text with %s', (_what, text) => {
  it.each([
    ['/api/v1/api-keys', 'name', `{"name":"${text}"}`],
    ['/api/v1/agent-roles', 'name', `{"name":"${text}","platform_scopes":[]}`],
    ['/api/v1/agent-roles', 'description', `{"name":"described","description":"${text}","platform_scopes":[]}`],
    ['/api/v1/mode-tool-configs', 'mode', `{"mode":"${text}","additional_scopes":["chat:read"]}`],
  ])('%s refuses it in %s with a 400 naming the field, creating nothing', async (path, field, body) => {
    const before = (await as(admin).get(path)).body;
    const res = await as(admin).post(path, body).expect(400);
    expect(res.body.errors).toEqual([{ field, message: expect.stringMatching(/NUL|unpaired surrogate/) }]);
    expect((await as(admin).get(path)).body).toEqual(before);
  });

  it('is a 400 naming mode when a session is started with it', async () => {
    const [role] = (await as(admin).get('/api/v1/agent-roles')).body;
    const res = await as(admin).post('/api/v1/mode-sessions', `{"agent_role_id":"${role.id}","mode":"${text}"}`).expect(400);
    expect(res.body.errors).toEqual([{ field: 'mode', message: expect.any(String) }]);
  });
});

describe.each(UNSTORABLE)('MCP tools/call with %s', (_what, text) => {
  let key: TestKey;
  beforeAll(async () => {
    key = await makeKey(t);
  });
  const callWith = (data: string) =>
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"projects","arguments":{"action":"create","data":${data}}}}`;

  it.each([
    ['a value', `{"ok":1,"x":"${text}"}`, 'arguments.data.x'],
    ['a nested value', `{"x":{"list":["ok","${text}"]}}`, 'arguments.data.x.list[1]'],
  ])('in %s of data is -32602 naming the field, writing nothing', async (_where, data, field) => {
    const res = await rpc(t, key, callWith(data)).expect(200);
    expect(res.body.error).toMatchObject({ code: -32602, data: [{ field, message: expect.stringMatching(/NUL|unpaired surrogate/) }] });
    expect(await recordCount(t, key.user)).toBe(0);
  });

  it('in a key of data is -32602 naming it, writing nothing', async () => {
    const res = await rpc(t, key, callWith(`{"${text}":1}`)).expect(200);
    expect(res.body.error).toMatchObject({
      code: -32602,
      data: [{ field: expect.stringMatching(/^arguments\.data\.a.*b$/), message: expect.stringMatching(/^its name/) }],
    });
    expect(await recordCount(t, key.user)).toBe(0);
  });

  it.each([
    ['resources/read', `{"uri":"keygate://projects/${text}"}`, 'uri'],
    ['prompts/get', `{"name":"p","arguments":{"${text}":"x"}}`, /^arguments\.a.*b$/],
    [
      'initialize',
      `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"${text}"}}`,
      'clientInfo.version',
    ],
  ])('in %s params is -32602 naming the field: every message gets the same check', async (method, params, field) => {
    const res = await rpc(t, key, `{"jsonrpc":"2.0","id":3,"method":"${method}","params":${params}}`).expect(200);
    expect(res.body).toMatchObject({
      id: 3,
      error: { code: -32602, data: [{ field, message: expect.stringMatching(/NUL|unpaired surrogate/) }] },
    });
  });

  it("in a notification's params is an HTTP 400 with -32602 naming the field", async () => {
    const res = await rpc(
      t,
      key,
      `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"${text}"}}`,
    ).expect(400);
    expect(res.body).toMatchObject({ id: null, error: { code: -32602, data: [{ field: 'reason' }] } });
  });

  it('in the tool name is -32602 naming it', async () => {
    const res = await rpc(
      t,
      key,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s${text}__tool","arguments":{}}}`,
    ).expect(200);
    expect(res.body.error).toMatchObject({ code: -32602, data: [{ field: 'name', message: expect.any(String) }] });
  });
});

describe('JSON nested deeper than 32 levels', () => {
  it('is a 400 naming the field in a REST body, even 30,000 deep, creating nothing', async () => {
    const before = (await as(admin).get('/api/v1/api-keys')).body;
    const res = await as(admin)
      .post('/api/v1/api-keys', `{"name":"deep","scopes":${nested(30_000)}}`)
      .expect(400);
    expect(res.body.errors).toEqual([{ field: expect.stringMatching(/^scopes\[0\]/), message: 'is nested deeper than 32 levels' }]);
    expect((await as(admin).get('/api/v1/api-keys')).body).toEqual(before);
  });

  it('counts from the body: 32 levels pass to the field checks, 33 do not', async () => {
    const at32 = await as(admin)
      .post('/api/v1/api-keys', `{"name":"deep","scopes":${nested(31)}}`)
      .expect(400);
    expect(at32.body.errors).toEqual([{ field: 'scopes[0]', message: 'scope must be a string, got an array' }]);
    const at33 = await as(admin)
      .post('/api/v1/api-keys', `{"name":"deep","scopes":${nested(32)}}`)
      .expect(400);
    expect(at33.body.errors[0].message).toBe('is nested deeper than 32 levels');
  });

  it('is -32602 in MCP data, before anything runs', async () => {
    const key = await makeKey(t);
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"projects","arguments":{"action":"create","data":{"x":${nested(30_000)}}}}}`;
    const res = await rpc(t, key, body).expect(400);
    expect(res.body).toMatchObject({
      id: 7,
      error: { code: -32602, data: [{ field: expect.stringMatching(/^params\.arguments\.data\.x\[0\]/) }] },
    });
    expect(await recordCount(t, key.user)).toBe(0);
  });

  it('counts from the JSON-RPC message: 32 levels are served, 33 are -32602', async () => {
    const key = await makeKey(t);
    const list = (depth: number) => `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${nested(depth)}}}`;
    expect((await rpc(t, key, list(30)).expect(200)).body.result.tools).toEqual(expect.any(Array));
    expect((await rpc(t, key, list(31)).expect(400)).body.error.code).toBe(-32602);
  });

  it('is -32600 when the deep JSON is not a JSON-RPC message at all', async () => {
    const key = await makeKey(t);
    expect((await rpc(t, key, nested(30_000)).expect(400)).body.error.code).toBe(-32600);
  });
});

describe('a malformed percent-encoding in a path', () => {
  it.each(['%ff', '%', '%zz', '%C0%80', '%ED%A0%80'])('is a 400 on every :id route, not a 500 (%s)', async (id) => {
    for (const path of ['/api/v1/api-keys', '/api/v1/agent-roles', '/api/v1/mode-tool-configs', '/api/v1/mode-sessions']) {
      const res = await request(t.app).delete(`${path}/${id}`).set('Authorization', `Bearer ${admin}`).expect(400);
      expect(res.body).toMatchObject({ type: 'urn:keygate:problem:malformed-path' });
      expect(res.text).not.toContain(id);
    }
  });
});

describe('"constructor" and "prototype" fields in a REST body', () => {
  it.each([
    ['/api/v1/api-keys', '{"constructor":{"prototype":{"name":"key"}}}', 'constructor'],
    ['/api/v1/mode-tool-configs', '{"constructor":{"prototype":{"mode":"m","additional_scopes":["chat:read"]}}}', 'constructor'],
    ['/api/v1/tool-sets', '{"agent_role_id":"c17f3822-817c-4eb6-9e0c-b37983d4c85f","prototype":{"constructor":[]}}', 'prototype'],
  ])('%s refuses them as unknown fields, creating nothing', async (path, body, field) => {
    const before = (await as(admin).get('/api/v1/api-keys')).body;
    const res = await as(admin).post(path, body).expect(400);
    expect(res.body.errors).toEqual([{ field, message: 'is not a known field' }]);
    expect((await as(admin).get('/api/v1/api-keys')).body).toEqual(before);
  });
});

describe('a "__proto__" field in a REST body', () => {
  it.each(['null', '{"polluted":true}', '5'])('is refused as an unknown field when it is %s, creating nothing', async (value) => {
    const before = (await as(admin).get('/api/v1/api-keys')).body;
    const res = await as(admin).post('/api/v1/api-keys', `{"name":"proto","__proto__":${value}}`).expect(400);
    expect(res.body.errors).toEqual([{ field: '__proto__', message: 'is not a known field' }]);
    expect((await as(admin).get('/api/v1/api-keys')).body).toEqual(before);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
