import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { startTwoReplicas, TwoReplicas } from '../support/app-replicas';
import { INITIALIZE, initialize, mcpPost, mcpRequest, rpcBody } from '../support/mcp-session-client';

jest.setTimeout(60_000);

let r: TwoReplicas;
let a: string;
let b: string;

beforeAll(async () => {
  r = await startTwoReplicas();
  a = r.aUrl;
  b = r.b.url;
});
afterAll(() => r?.close());

const auth = (user: string) => `Bearer ${r.a.userToken(user)}`;
async function createKey(user = randomUUID(), scopes: string[] = []): Promise<{ id: string; raw: string; user: string }> {
  const res = await request(r.a.app)
    .post('/api/v1/api-keys')
    .set('Authorization', auth(user))
    .send({ name: 'sessions', scopes })
    .expect(201);
  return { id: res.body.id, raw: res.body.raw_key, user };
}
const toolsList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const listProjects = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'projects', arguments: { action: 'list' } } };
const sessionRow = async (keyId: string) =>
  await r.a.db.dataSource.query(
    'SELECT token_hash, protocol_version, client_info, client_capabilities, ended_at FROM mcp_sessions WHERE key_id = $1',
    [keyId],
  );

describe('sessions across two replicas', () => {
  it('opens a session at initialize on one replica and serves it on the other', async () => {
    const key = await createKey();
    const res = await mcpPost(a, key.raw, INITIALIZE);
    expect(res.status).toBe(200);
    const body = await rpcBody(res);
    expect(body.result.capabilities.tools).toEqual({ listChanged: true });
    const session = res.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const headers = { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' };
    const listed = await mcpPost(b, key.raw, toolsList, headers);
    expect(listed.status).toBe(200);
    expect((await rpcBody(listed)).result.tools.length).toBeGreaterThan(0);
    const called = await mcpPost(b, key.raw, listProjects, headers);
    expect(called.status).toBe(200);
    expect((await rpcBody(called)).result.isError).toBeFalsy();
    // Only the hash is stored, with what initialize said.
    const [row] = await sessionRow(key.id);
    expect(row.token_hash).not.toContain(session);
    expect(row).toMatchObject({
      protocol_version: '2025-11-25',
      client_info: INITIALIZE.params.clientInfo,
      client_capabilities: { sampling: {} },
      ended_at: null,
    });
  });

  it("answers 404 to an unknown, a malformed and another key's session id, alike", async () => {
    const key = await createKey();
    const other = await createKey();
    const theirs = await initialize(a, other.raw);
    for (const id of [theirs, 'A'.repeat(43), 'not-a-session', 'x'.repeat(5000)]) {
      const res = await mcpPost(b, key.raw, toolsList, { 'Mcp-Session-Id': id });
      expect(res.status).toBe(404);
      const text = await res.text();
      expect(text.length).toBeLessThan(200);
      expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
    }
    // Still the other key's, untouched.
    expect((await mcpPost(b, other.raw, toolsList, { 'Mcp-Session-Id': theirs })).status).toBe(200);
  });

  it('answers 400 to an unsupported MCP-Protocol-Version in a session, whatever the method', async () => {
    const key = await createKey();
    const session = await initialize(a, key.raw);
    const headers = { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '1999-01-01' };
    expect((await mcpPost(b, key.raw, toolsList, headers)).status).toBe(400);
    expect((await mcpPost(b, key.raw, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(400);
    expect((await mcpRequest(b, key.raw, 'DELETE', headers)).status).toBe(400);
    expect((await mcpPost(b, key.raw, toolsList, { ...headers, 'MCP-Protocol-Version': '2025-06-18' })).status).toBe(200);
  });

  it('checks the key first: a bad key with a good session id is 401', async () => {
    const key = await createKey();
    const session = await initialize(a, key.raw);
    expect((await mcpPost(b, `svc_${'0'.repeat(64)}`, toolsList, { 'Mcp-Session-Id': session })).status).toBe(401);
  });

  it('ends a session with DELETE (204), after which both replicas answer 404', async () => {
    const key = await createKey();
    const session = await initialize(a, key.raw);
    expect((await mcpRequest(b, key.raw, 'DELETE', { 'Mcp-Session-Id': session })).status).toBe(204);
    expect((await mcpPost(a, key.raw, toolsList, { 'Mcp-Session-Id': session })).status).toBe(404);
    expect((await mcpPost(b, key.raw, toolsList, { 'Mcp-Session-Id': session })).status).toBe(404);
    expect((await mcpRequest(a, key.raw, 'DELETE', { 'Mcp-Session-Id': session })).status).toBe(404);
  });

  it('answers 404 on both replicas once a session they both just served is ended in the table, as another release or an operator would', async () => {
    const key = await createKey();
    const session = await initialize(a, key.raw);
    const headers = { 'Mcp-Session-Id': session };
    // Each replica has just served the session: a cache of it anywhere would hold it now.
    for (const url of [a, b, a, b]) expect((await mcpPost(url, key.raw, toolsList, headers)).status).toBe(200);
    await r.a.db.dataSource.query('UPDATE mcp_sessions SET ended_at = now() WHERE key_id = $1', [key.id]);
    for (const url of [a, b]) {
      // Polled for a few seconds: a cache that the table's NOTIFY evicts would pass, one that is never told would not.
      const deadline = Date.now() + 5_000;
      let status = 200;
      while (status === 200 && Date.now() < deadline) {
        status = (await mcpPost(url, key.raw, toolsList, headers)).status;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status).toBe(404);
    }
  });

  it('leaves requests without a session id as they were: no session, 405 for GET and DELETE', async () => {
    const key = await createKey();
    const res = await mcpPost(b, key.raw, toolsList);
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect((await mcpRequest(b, key.raw, 'GET', { Accept: 'text/event-stream' })).status).toBe(405);
    expect((await mcpRequest(b, key.raw, 'DELETE')).status).toBe(405);
    expect(await sessionRow(key.id)).toEqual([]);
  });

  it('refuses initialize inside a batch or inside a session, opening nothing', async () => {
    const key = await createKey();
    const batch = await mcpPost(a, key.raw, [INITIALIZE, toolsList]);
    expect(batch.status).toBe(400);
    expect((await rpcBody(batch)).error.code).toBe(-32600);
    expect(await sessionRow(key.id)).toEqual([]);
    const session = await initialize(a, key.raw);
    const again = await mcpPost(b, key.raw, INITIALIZE, { 'Mcp-Session-Id': session });
    expect(again.status).toBe(400);
    expect(await sessionRow(key.id)).toHaveLength(1);
  });

  it('answers 202 to a session POST carrying only notifications or responses', async () => {
    const key = await createKey();
    const session = await initialize(a, key.raw);
    const headers = { 'Mcp-Session-Id': session };
    const initialized = await mcpPost(b, key.raw, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    expect(initialized.status).toBe(202);
    expect(await initialized.text()).toBe('');
    const answers = await mcpPost(
      b,
      key.raw,
      [
        { jsonrpc: '2.0', id: 'srv-1', result: {} },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'srv-2' } },
      ],
      headers,
    );
    expect(answers.status).toBe(202);
  });

  it("ends the key's sessions when the key is revoked", async () => {
    const key = await createKey();
    const session = await initialize(a, key.raw);
    await request(r.a.app).delete(`/api/v1/api-keys/${key.id}`).set('Authorization', auth(key.user)).expect(204);
    const [row] = await sessionRow(key.id);
    expect(row.ended_at).not.toBeNull();
    expect((await mcpPost(b, key.raw, toolsList, { 'Mcp-Session-Id': session })).status).toBe(401);
  });

  it("ends the key's sessions when it is rolled without overlap, not with one", async () => {
    const key = await createKey();
    const session = await initialize(a, key.raw);
    const rolled = await request(r.a.app).post(`/api/v1/api-keys/${key.id}/roll`).set('Authorization', auth(key.user)).send({}).expect(201);
    expect((await sessionRow(key.id))[0].ended_at).not.toBeNull();
    // The new key cannot take the old key's session over.
    expect((await mcpPost(b, rolled.body.raw_key, toolsList, { 'Mcp-Session-Id': session })).status).toBe(404);

    const graced = await createKey();
    const kept = await initialize(a, graced.raw);
    await request(r.a.app)
      .post(`/api/v1/api-keys/${graced.id}/roll`)
      .set('Authorization', auth(graced.user))
      .send({ grace_seconds: 60 })
      .expect(201);
    expect((await mcpPost(b, graced.raw, toolsList, { 'Mcp-Session-Id': kept })).status).toBe(200);
  });

  it('holds at most MCP_MAX_SESSIONS_PER_KEY live sessions per key, ending the least recently seen', async () => {
    const limited = await startTwoReplicas({ MCP_MAX_SESSIONS_PER_KEY: '2' });
    try {
      const res = await request(limited.a.app)
        .post('/api/v1/api-keys')
        .set('Authorization', `Bearer ${limited.a.userToken()}`)
        .send({ name: 'few' })
        .expect(201);
      const raw = res.body.raw_key as string;
      const first = await initialize(limited.aUrl, raw);
      const second = await initialize(limited.b.url, raw);
      const third = await initialize(limited.aUrl, raw);
      expect((await mcpPost(limited.b.url, raw, toolsList, { 'Mcp-Session-Id': first })).status).toBe(404);
      expect((await mcpPost(limited.b.url, raw, toolsList, { 'Mcp-Session-Id': second })).status).toBe(200);
      expect((await mcpPost(limited.b.url, raw, toolsList, { 'Mcp-Session-Id': third })).status).toBe(200);
      const [{ live }] = await limited.a.db.dataSource.query('SELECT count(*)::int AS live FROM mcp_sessions WHERE ended_at IS NULL');
      expect(live).toBe(2);
    } finally {
      await limited.close();
    }
  });
});

describe('idle sessions', () => {
  it('ends a session after MCP_SESSION_IDLE_SECONDS without requests, on every replica', async () => {
    const idle = await startTwoReplicas({ MCP_SESSION_IDLE_SECONDS: '1' });
    try {
      const res = await request(idle.a.app)
        .post('/api/v1/api-keys')
        .set('Authorization', `Bearer ${idle.a.userToken()}`)
        .send({ name: 'idle' })
        .expect(201);
      const raw = res.body.raw_key as string;
      const session = await initialize(idle.aUrl, raw);
      expect((await mcpPost(idle.b.url, raw, toolsList, { 'Mcp-Session-Id': session })).status).toBe(200);
      // Idle 1 s, touched at most once a second: gone within 2 s of silence, never before 1 s.
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expect((await mcpPost(idle.b.url, raw, toolsList, { 'Mcp-Session-Id': session })).status).toBe(404);
      expect((await mcpPost(idle.aUrl, raw, toolsList, { 'Mcp-Session-Id': session })).status).toBe(404);
      const busy = await initialize(idle.aUrl, raw);
      for (let i = 0; i < 5; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect((await mcpPost(i % 2 ? idle.aUrl : idle.b.url, raw, toolsList, { 'Mcp-Session-Id': busy })).status).toBe(200);
      }
    } finally {
      await idle.close();
    }
  });

  it('writes last_seen_at at most once per interval, not on every request', async () => {
    const key = await createKey();
    const session = await initialize(a, key.raw);
    const seen = async () =>
      (await r.a.db.dataSource.query('SELECT last_seen_at FROM mcp_sessions WHERE key_id = $1', [key.id]))[0].last_seen_at.getTime();
    const before = await seen();
    for (let i = 0; i < 5; i++) expect((await mcpPost(b, key.raw, toolsList, { 'Mcp-Session-Id': session })).status).toBe(200);
    // Idle 1800 s: one write per 180 s at most.
    expect(await seen()).toBe(before);
  });
});
