import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { startTwoReplicas, TwoReplicas } from '../support/app-replicas';
import { initialize, mcpPost, mcpRequest, rpcBody, SseReader } from '../support/mcp-session-client';
import { eventually } from '../support/replica';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

jest.setTimeout(60_000);

let r: TwoReplicas;
let upstream: UpstreamMcpServer;
const readers: SseReader[] = [];

beforeAll(async () => {
  r = await startTwoReplicas({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_MAX_STREAMS_PER_REPLICA: '3', MCP_MAX_STREAMS_PER_KEY: '2' });
  upstream = await startUpstream();
});
afterEach(() => {
  for (const reader of readers.splice(0)) reader.close();
});
afterAll(async () => {
  await r?.close();
  await upstream?.stop();
});

const auth = (user: string) => `Bearer ${r.a.userToken(user)}`;
async function createKey(scopes: string[], user = randomUUID()): Promise<{ id: string; raw: string; user: string }> {
  const res = await request(r.a.app)
    .post('/api/v1/api-keys')
    .set('Authorization', auth(user))
    .send({ name: 'streams', scopes })
    .expect(201);
  return { id: res.body.id, raw: res.body.raw_key, user };
}
const patchKey = (key: { id: string; user: string }, body: object) =>
  request(r.a.app).patch(`/api/v1/api-keys/${key.id}`).set('Authorization', auth(key.user)).send(body).expect(200);
async function open(base: string, raw: string, session: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const reader = await SseReader.open(base, raw, session, headers);
  readers.push(reader);
  return reader;
}
const listChanged = (reader: SseReader) => reader.events.filter((e) => JSON.parse(e.data).method === 'notifications/tools/list_changed');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /mcp: the session stream', () => {
  it("carries tools/list_changed on replica 2 after the key's scopes are edited through replica 1, and only when the tools changed", async () => {
    const key = await createKey(['projects:read']);
    const session = await initialize(r.aUrl, key.raw);
    const stream = await open(r.b.url, key.raw, session);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);

    await patchKey(key, { name: 'renamed' }); // the key changed, its tools did not
    await patchKey(key, { scopes: ['projects:read', 'chat:read'] }); // a tool more
    await eventually(() => listChanged(stream).length >= 1, 3000);
    await pause(500);
    // Both replicas heard the change; one of them announced it, once.
    expect(stream.events).toHaveLength(1);
    expect(JSON.parse(stream.events[0].data)).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(stream.events[0].id).toMatch(/^\d+$/);

    await patchKey(key, { name: 'renamed again' });
    await pause(500);
    expect(stream.events).toHaveLength(1);
  });

  it('announces nothing when an edit leaves the visible tools as they were', async () => {
    const key = await createKey(['chat:read']);
    const session = await initialize(r.aUrl, key.raw);
    const stream = await open(r.b.url, key.raw, session);
    await patchKey(key, { name: 'only the name' });
    await patchKey(key, { expires_at: new Date(Date.now() + 86_400_000).toISOString() });
    await pause(700);
    expect(stream.events).toEqual([]);
  });

  it('carries tools/list_changed when the owner adds an upstream MCP server', async () => {
    const owner = randomUUID();
    const admin = await createKey([], owner);
    const reader = await createKey(['mcp_servers:read'], owner);
    const session = await initialize(r.aUrl, reader.raw);
    const stream = await open(r.b.url, reader.raw, session);
    const created = await mcpPost(r.aUrl, admin.raw, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'mcp_servers', arguments: { action: 'create', data: { name: 'files', url: upstream.url } } },
    });
    expect(created.status).toBe(200);
    expect((await rpcBody(created)).result.isError).toBeFalsy();
    await eventually(() => listChanged(stream).length === 1, 5000);
    const listed = await mcpPost(r.b.url, reader.raw, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'Mcp-Session-Id': session });
    expect(((await rpcBody(listed)).result.tools as { name: string }[]).map((t) => t.name)).toContain('files__echo');
  });

  it('replays what was missed after Last-Event-ID on a reconnect to the other replica', async () => {
    const key = await createKey(['projects:read']);
    const session = await initialize(r.aUrl, key.raw);
    const first = await open(r.b.url, key.raw, session);
    await patchKey(key, { scopes: ['chat:read'] });
    await eventually(() => first.events.length === 1, 3000);
    const lastId = first.events[0].id!;
    first.close();
    await eventually(
      async () =>
        (await r.a.db.dataSource.query('SELECT stream_replica FROM mcp_sessions WHERE key_id = $1', [key.id]))[0].stream_replica === null,
      3000,
    );

    await patchKey(key, { scopes: ['projects:read'] }); // missed while away
    await eventually(
      async () =>
        (
          await r.a.db.dataSource.query(
            'SELECT count(*)::int AS n FROM mcp_session_events e JOIN mcp_sessions s ON s.id = e.session_id WHERE s.key_id = $1',
            [key.id],
          )
        )[0].n === 2,
      3000,
    );
    const resumed = await open(r.aUrl, key.raw, session, { 'Last-Event-ID': lastId });
    await eventually(() => resumed.events.length === 1, 3000);
    expect(Number(resumed.events[0].id)).toBe(Number(lastId) + 1);
    // Without Last-Event-ID a stream starts with what comes next.
    resumed.close();
    await eventually(
      async () =>
        (await r.a.db.dataSource.query('SELECT stream_replica FROM mcp_sessions WHERE key_id = $1', [key.id]))[0].stream_replica === null,
      3000,
    );
    const fresh = await open(r.b.url, key.raw, session);
    expect(fresh.response.status).toBe(200);
    await pause(300);
    expect(fresh.events).toEqual([]);
  });

  it('closes the stream when the session is deleted on the other replica, or its key revoked', async () => {
    const key = await createKey(['projects:read']);
    const session = await initialize(r.aUrl, key.raw);
    const stream = await open(r.b.url, key.raw, session);
    expect((await mcpRequest(r.aUrl, key.raw, 'DELETE', { 'Mcp-Session-Id': session })).status).toBe(204);
    await eventually(() => stream.ended, 3000);

    const revoked = await createKey(['projects:read']);
    const other = await initialize(r.aUrl, revoked.raw);
    const otherStream = await open(r.b.url, revoked.raw, other);
    await request(r.a.app).delete(`/api/v1/api-keys/${revoked.id}`).set('Authorization', auth(revoked.user)).expect(204);
    await eventually(() => otherStream.ended, 3000);
  });
});

describe('GET /mcp limits', () => {
  it('answers 406 without Accept: text/event-stream, and 409 to a second stream of a session on either replica', async () => {
    const key = await createKey(['projects:read']);
    const session = await initialize(r.aUrl, key.raw);
    expect((await mcpRequest(r.b.url, key.raw, 'GET', { Accept: 'application/json', 'Mcp-Session-Id': session })).status).toBe(406);
    const stream = await open(r.b.url, key.raw, session);
    expect(stream.response.status).toBe(200);
    expect((await open(r.b.url, key.raw, session)).response.status).toBe(409);
    expect((await open(r.aUrl, key.raw, session)).response.status).toBe(409);
    expect((await mcpRequest(r.b.url, key.raw, 'GET', { Accept: 'text/event-stream', 'Mcp-Session-Id': 'unknown' })).status).toBe(404);
  });

  it('holds at most MCP_MAX_STREAMS_PER_REPLICA streams on one replica (503), and frees a place when one closes', async () => {
    // Two keys fill it: one key may hold only MCP_MAX_STREAMS_PER_KEY of them (mcp-stream-shares.test.ts).
    const [key, other] = [await createKey(['projects:read']), await createKey(['projects:read'])];
    const sessions = await Promise.all([1, 2].map(() => initialize(r.aUrl, key.raw)));
    const others = await Promise.all([1, 2].map(() => initialize(r.aUrl, other.raw)));
    const held = [
      await open(r.b.url, key.raw, sessions[0]),
      await open(r.b.url, key.raw, sessions[1]),
      await open(r.b.url, other.raw, others[0]),
    ];
    expect(held.map((s) => s.response.status)).toEqual([200, 200, 200]);
    const refused = await open(r.b.url, other.raw, others[1]);
    expect(refused.response.status).toBe(503);
    expect(refused.response.headers.get('retry-after')).toBe('5');
    // The other replica has room of its own.
    expect((await open(r.aUrl, other.raw, others[1])).response.status).toBe(200);
    held[0].close();
    await eventually(async () => (await open(r.b.url, key.raw, sessions[0])).response.status === 200, 3000, 50);
  });
});
