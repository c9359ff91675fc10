import request from 'supertest';
import { call, makeKey, recordCount, rpc, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';

/** Hardening issue, row 1: every error body is small, whatever the input. */
let t: TestApp;
let full: TestKey;
beforeAll(async () => {
  t = await startTestApp();
  full = await makeKey(t);
});
afterAll(() => t.close());

const MiB = 1024 * 1024;
const post = (path: string, body: string) =>
  request(t.app).post(path).set('Authorization', `Bearer ${t.adminToken()}`).set('Content-Type', 'application/json').send(body);

/** An error body within the bounds: under 16 KiB, at most 20 entries, each message at most 200 characters. */
function expectSmall(res: request.Response, entries: unknown[] | undefined) {
  expect(Buffer.byteLength(res.text)).toBeLessThan(16 * 1024);
  expect((entries ?? []).length).toBeLessThanOrEqual(20);
  for (const entry of entries ?? []) expect((entry as { message: string }).message.length).toBeLessThanOrEqual(200);
}

describe('POST /mcp with a 1 MiB body', () => {
  const agentScopes = `[${new Array(520_000).fill('0').join(',')}]`;
  const toolsList = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"agent_scopes":${agentScopes}}}`;

  it('answers tools/list with 520,000 agent_scopes with a small -32602 saying at most 12', async () => {
    expect(toolsList.length).toBeGreaterThan(MiB - 64 * 1024);
    expect(toolsList.length).toBeLessThan(MiB);
    const res = await rpc(t, full, toolsList).expect(200);
    expect(res.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('at most 12') });
    expect(res.body.error.message.length).toBeLessThanOrEqual(200);
    expectSmall(res, res.body.error.data);
  });

  it('answers three of them at once', async () => {
    const answers = await Promise.all([1, 2, 3].map(() => rpc(t, full, toolsList)));
    for (const res of answers) {
      expect(res.body.error.code).toBe(-32602);
      expectSmall(res, res.body.error.data);
    }
  });

  it('answers a tools/call of unknown argument names with a small tool error and writes nothing', async () => {
    const key = await makeKey(t);
    const args: Record<string, unknown> = {};
    for (let i = 0; i < 34_000; i++) args[`unknown_argument_${i}`] = i;
    const body = JSON.stringify(call(1, 'agents', { ...args, action: 'create' }));
    expect(body.length).toBeGreaterThan(MiB - 200 * 1024);
    expect(body.length).toBeLessThan(MiB);
    const res = await rpc(t, key, body).expect(200);
    expect(res.body.result.isError).toBe(true);
    const entries = res.body.result.content[0].text.split('; ');
    expect(entries.length).toBeLessThanOrEqual(20);
    expect(entries[0]).toMatch(/^unknown_argument_0: is not an argument of the agents tool/);
    expectSmall(res, undefined);
    expect(await recordCount(t, key.user)).toBe(0);
  });

  it('refuses a string id longer than 64 characters (-32600), which every answer would repeat', async () => {
    const res = await rpc(t, full, { jsonrpc: '2.0', id: 'i'.repeat(500_000), method: 'tools/list', params: { agent_scopes: 5 } }).expect(
      400,
    );
    expect(res.body).toMatchObject({ id: null, error: { code: -32600 } });
    expectSmall(res, undefined);
  });

  it('refuses an initialize with 500,000 icons before its schema builds an issue for each', async () => {
    const icons = new Array(500_000).fill(0);
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1', icons } },
    };
    const res = await rpc(t, full, body).expect(200);
    expect(res.body.error).toMatchObject({
      code: -32602,
      data: [{ field: 'params.clientInfo.icons', message: 'must hold at most 100 items' }],
    });
    expectSmall(res, res.body.error.data);
  });
});

describe('names a caller chose, quoted in an error', () => {
  it('a refused call of a long upstream tool name quotes 64 characters of it', async () => {
    const user = crypto.randomUUID();
    const writer = await makeKey(t, [], user);
    const created = await rpc(
      t,
      writer,
      call(1, 'mcp_servers', { action: 'create', data: { name: 'files', url: 'https://files.example.com/mcp' } }),
    );
    expect(created.body.result.isError).toBeUndefined();
    const reader = await makeKey(t, ['mcp_servers:read'], user);
    const res = await rpc(t, reader, call(2, `files__${'t'.repeat(5_000)}`, {})).expect(403);
    expect(res.body.error.message).toContain(`files__${'t'.repeat(56)}…`);
    expect(res.text).not.toContain('t'.repeat(65));
  });

  it('an unknown route quotes 64 characters of its path', async () => {
    const res = await request(t.app)
      .get(`/${'p'.repeat(5_000)}`)
      .expect(404);
    expect(res.body.detail).toBe(`No route for GET /${'p'.repeat(62)}…`);
  });
});

describe('REST bodies', () => {
  it.each([
    ['/api/v1/api-keys', 'scopes', { name: 'many' }],
    ['/api/v1/agent-roles', 'platform_scopes', { name: 'many' }],
    ['/api/v1/mode-tool-configs', 'additional_scopes', { mode: 'many' }],
  ])('%s refuses a 63 KB %s array with one small error, creating nothing', async (path, field, rest) => {
    const list = (await request(t.app).get(path).set('Authorization', `Bearer ${t.adminToken()}`).expect(200)).body;
    const scopes = Array.from({ length: 4_030 }, (_, i) => `nope${i}:read`);
    const body = JSON.stringify({ ...rest, [field]: scopes });
    expect(body.length).toBeGreaterThan(63_000);
    expect(body.length).toBeLessThan(64 * 1024);
    const res = await post(path, body).expect(400);
    expect(res.body.errors).toEqual([{ field, message: `must hold at most 12 scopes, the whole catalog; it holds 4030` }]);
    expectSmall(res, res.body.errors);
    expect((await request(t.app).get(path).set('Authorization', `Bearer ${t.adminToken()}`).expect(200)).body).toEqual(list);
  });

  it('quotes at most 64 characters of a bad scope', async () => {
    const scope = 's'.repeat(60_000);
    const res = await post('/api/v1/api-keys', JSON.stringify({ name: 'long', scopes: [scope] })).expect(400);
    expect(res.body.errors).toEqual([{ field: 'scopes[0]', message: expect.stringContaining(`"${'s'.repeat(63)}…"`) }]);
    expect(res.text).not.toContain('s'.repeat(65));
  });

  it('lists at most 20 unknown fields, each name clipped', async () => {
    const fields = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`${'f'.repeat(100)}${i}`, 1]));
    const res = await post('/api/v1/api-keys', JSON.stringify({ name: 'x', ...fields })).expect(400);
    expect(res.body.errors).toHaveLength(20);
    expect(res.text).not.toContain('f'.repeat(65));
    expectSmall(res, res.body.errors);
  });
});
