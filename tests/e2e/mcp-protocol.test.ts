import request from 'supertest';
import { call, makeKey, rpc, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';

let t: TestApp;
let full: TestKey;
beforeAll(async () => {
  t = await startTestApp();
  full = await makeKey(t);
});
afterAll(() => t.close());

const init = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('POST /mcp lifecycle and transport', () => {
  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])('accepts protocol version %s', async (version) => {
    const res = await rpc(t, full, init(version)).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.result).toMatchObject({ protocolVersion: version, serverInfo: { name: 'keygate' }, capabilities: { tools: {} } });
    // initialize opens a session (tests/e2e/mcp-sessions.test.ts); a client may ignore it and stay stateless.
    expect(res.headers['mcp-session-id']).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.result.capabilities.tools).toEqual({ listChanged: true });
  });

  it('answers an unsupported version with the latest one it supports', async () => {
    expect((await rpc(t, full, init('1999-01-01')).expect(200)).body.result.protocolVersion).toBe('2025-11-25');
  });

  it('takes notifications/initialized with 202 and an empty body', async () => {
    const res = await rpc(t, full, { jsonrpc: '2.0', method: 'notifications/initialized' }).expect(202);
    expect(res.text).toBe('');
  });

  it('answers ping with an empty result', async () => {
    expect((await rpc(t, full, { jsonrpc: '2.0', id: 'p', method: 'ping' }).expect(200)).body).toEqual({
      jsonrpc: '2.0',
      id: 'p',
      result: {},
    });
  });

  it('streams the answer as SSE when the client accepts only an event stream', async () => {
    const res = await rpc(t, full, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { Accept: 'text/event-stream' })
      .buffer(true)
      .parse((r, done) => {
        let s = '';
        r.on('data', (c: Buffer) => (s += c.toString()));
        r.on('end', () => done(null, s));
      })
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const data = JSON.parse(/^data: (.*)$/m.exec(res.body as string)![1]);
    expect(data).toMatchObject({ id: 3, result: { tools: expect.any(Array) } });
  });

  it('answers 406 when the client accepts neither JSON nor an event stream', async () => {
    await rpc(t, full, { jsonrpc: '2.0', id: 1, method: 'ping' }, { Accept: 'text/html' }).expect(406);
  });

  it('answers GET and DELETE without a session id with 405, after the key check', async () => {
    const get = await request(t.app).get('/mcp').set('Accept', 'text/event-stream').set('X-API-Key', full.raw).expect(405);
    expect(get.headers.allow).toBe('POST');
    await request(t.app).put('/mcp').set('X-API-Key', full.raw).expect(405);
    await request(t.app).put('/mcp').expect(401);
    await request(t.app).delete('/mcp').set('X-API-Key', full.raw).expect(405);
    await request(t.app).get('/mcp').expect(401);
  });

  it('refuses a foreign Origin with 403 and accepts loopback origins', async () => {
    await rpc(t, full, { jsonrpc: '2.0', id: 1, method: 'ping' }, { Origin: 'https://evil.example.com' }).expect(403);
    await rpc(t, full, { jsonrpc: '2.0', id: 1, method: 'ping' }, { Origin: 'null' }).expect(403);
    await rpc(t, full, { jsonrpc: '2.0', id: 1, method: 'ping' }, { Origin: 'http://localhost:6274' }).expect(200);
    await rpc(t, full, { jsonrpc: '2.0', id: 1, method: 'ping' }, { Origin: 'http://127.0.0.1:3000' }).expect(200);
  });

  it('authenticates before any JSON-RPC handling: 401 with a Bearer challenge', async () => {
    const res = await rpc(t, null, '{broken').expect(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});

describe('POST /mcp JSON-RPC errors', () => {
  it('-32700 for a body that is not JSON', async () => {
    const res = await rpc(t, full, '{"jsonrpc": "2.0",').expect(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } });
  });

  it.each([
    ['a number', 5],
    ['a string', '"x"'],
    ['an array of numbers', [1, 2]],
    ['an empty batch', []],
    ['an object without method', { jsonrpc: '2.0', id: 9 }],
    ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 9, method: 'ping' }],
  ])('-32600 for %s', async (_what, body) => {
    const res = await rpc(t, full, typeof body === 'string' ? body : JSON.stringify(body)).expect(400);
    expect(res.body.error.code).toBe(-32600);
  });

  it('-32600 for resources/subscribe without a session, which has nowhere to keep it or send its updates', async () => {
    const subscribe = await rpc(t, full, {
      jsonrpc: '2.0',
      id: 4,
      method: 'resources/subscribe',
      params: { uri: 'keygate://files/file:///a' },
    }).expect(200);
    expect(subscribe.body).toMatchObject({ id: 4, error: { code: -32600 } });
  });

  it('logging/setLevel is declared: {} for a level (kept only within a session), -32602 for a level that is none', async () => {
    const res = await rpc(t, full, { jsonrpc: '2.0', id: 4, method: 'logging/setLevel', params: { level: 'info' } }).expect(200);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    const bad = await rpc(t, full, { jsonrpc: '2.0', id: 5, method: 'logging/setLevel', params: { level: 'loud' } }).expect(200);
    expect(bad.body).toMatchObject({ id: 5, error: { code: -32602 } });
  });

  it.each([
    ['an unknown tool', call(5, 'weather', { action: 'get' }), /Unknown tool: weather/],
    ['a call without a name', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: {} }, /name/],
    [
      'agent_scopes with a bad scope',
      { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { agent_scopes: ['agents:admin'] } },
      /agents:admin/,
    ],
    [
      'agent_scopes that is not an array',
      { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { agent_scopes: 'agents:read' } },
      /agent_scopes/,
    ],
    ['a cursor that was never issued', { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { cursor: 'abc' } }, /cursor/],
    [
      'initialize without a protocol version',
      { jsonrpc: '2.0', id: 5, method: 'initialize', params: { capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
      /protocolVersion/,
    ],
    [
      'initialize with a clientInfo that is not an object',
      { ...init('2025-06-18'), id: 5, params: { ...init('2025-06-18').params, clientInfo: 'me' } },
      /clientInfo/,
    ],
  ])('-32602 for %s, with a message that reads as it is', async (_what, body, message) => {
    const res = await rpc(t, full, body).expect(200);
    expect(res.body).toMatchObject({ id: 5, error: { code: -32602, message: expect.stringMatching(message) } });
    expect(res.body.error.message).not.toMatch(/MCP error/);
  });
});

describe('tools/call scope enforcement', () => {
  const challenge = (scope: string) => `Bearer error="insufficient_scope", scope="${scope}"`;

  it.each([
    [['agents:read'], call(7, 'agents', { action: 'assign', subresource: 'mcp', id: crypto.randomUUID(), data: {} }), 'agents:write'],
    [['agents:read'], call(7, 'agents', { action: 'delete', id: crypto.randomUUID() }), 'agents:write'],
    [['projects:read'], call(7, 'agents', { action: 'get', subresource: 'prompt', id: crypto.randomUUID() }), 'agents:read'],
    [['projects:read'], call(7, 'agents', { action: 'bogus' }), 'agents:read'],
    [['chat:write'], call(7, 'models', { action: 'list' }), 'models:read'],
  ])('a key with %j gets 403 and a challenge for %j', async (scopes, body, scope) => {
    const key = await makeKey(t, scopes);
    const res = await rpc(t, key, body).expect(403);
    expect(res.headers['www-authenticate']).toBe(challenge(scope));
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { message: expect.stringContaining(scope) } });
  });

  it('executes nothing when it refuses', async () => {
    const key = await makeKey(t, ['agents:read']);
    await rpc(t, key, call(1, 'agents', { action: 'create', data: { name: 'sneaky' } })).expect(403);
    const [{ count }] = await t.db.dataSource.query('SELECT count(*)::int AS count FROM resource_records WHERE user_id = $1', [key.user]);
    expect(count).toBe(0);
  });

  it('lets agents:write read, since write implies read', async () => {
    const key = await makeKey(t, ['agents:write']);
    const res = await rpc(t, key, call(1, 'agents', { action: 'list' })).expect(200);
    expect(res.body.result.structuredContent).toEqual({ records: [] });
  });
});

describe('tools/call failures inside a tool are results with isError', () => {
  it.each([
    ['a missing action', { data: {} }, /action: is required/],
    ['an unknown action', { action: 'explode' }, /"explode" is not one of/],
    [
      'a subresource of another resource',
      { action: 'list', subresource: 'tasks', id: crypto.randomUUID() },
      /"tasks" is not a subresource of agents/,
    ],
    ['an unknown argument', { action: 'list', filter: 'x' }, /filter: is not an argument/],
    ['an id that is not a UUID', { action: 'get', id: '42' }, /id: must be a record id/],
    [
      'an unknown record id',
      { action: 'get', id: '00000000-0000-4000-8000-000000000000' },
      /agents 00000000-0000-4000-8000-000000000000 was not found/,
    ],
    ['get without an id', { action: 'get' }, /id: is required for get/],
    [
      'assign without a subresource',
      { action: 'assign', id: '00000000-0000-4000-8000-000000000000' },
      /subresource: is required for assign/,
    ],
    ['search without text', { action: 'search' }, /data.text: is required/],
  ])('%s', async (_what, args, message) => {
    const res = await rpc(t, full, call(8, 'agents', args)).expect(200);
    expect(res.body.result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(message) }] });
    expect(res.body.result.structuredContent).toBeUndefined();
  });
});
