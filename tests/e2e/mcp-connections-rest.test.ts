import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import request from 'supertest';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { tablesContaining } from '../support/plaintext-scan';
import { startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

const BASE = '/api/v1/mcp-servers';
const logLines: string[] = [];
const personal = { type: 'user_secret', header: 'Authorization', prefix: 'Bearer ' };

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8' }, undefined, {
    logger: createLogger('trace', new Writable({ write: (chunk, _enc, done) => (logLines.push(chunk.toString()), done()) })),
  });
});
afterAll(() => t?.close());

const as = (jwt: string) => ({
  get: (path: string) => request(t.app).get(path).set('Authorization', `Bearer ${jwt}`),
  post: (path: string, body: unknown) =>
    request(t.app)
      .post(path)
      .set('Authorization', `Bearer ${jwt}`)
      .send(body as object),
  delete: (path: string) => request(t.app).delete(path).set('Authorization', `Bearer ${jwt}`),
});
const aUser = () => {
  const id = randomUUID();
  return { id, ...as(t.userToken(id)) };
};
const aSecret = () => `sk-${randomBytes(12).toString('hex')}`;
const serverOf = async (user: ReturnType<typeof aUser>, auth: unknown = personal) =>
  (await user.post(BASE, { name: `s-${randomBytes(4).toString('hex')}`, url: 'http://127.0.0.1:9/mcp', auth }).expect(201)).body
    .id as string;

describe('/api/v1/mcp-servers/:id/connection', () => {
  it('shows not_connected, stores the secret (201), shows connected, forgets it (204), then 404; the secret in no answer, log line, event or table', async () => {
    const alice = aUser();
    const secret = aSecret();
    const id = await serverOf(alice);
    const path = `${BASE}/${id}/connection`;
    const answers = [await alice.get(path).expect(200)];
    expect(answers[0].body).toEqual({
      server_id: id,
      auth_type: 'user_secret',
      state: 'not_connected',
      kind: null,
      scopes: [],
      expires_at: null,
      account: null,
      created_at: null,
      updated_at: null,
    });
    answers.push(await alice.post(path, { secret }).expect(201));
    expect(answers[1].body).toMatchObject({ server_id: id, state: 'connected', kind: 'user_secret', created_at: expect.any(String) });
    answers.push(await alice.get(path).expect(200));
    expect(answers[2].body).toEqual(answers[1].body);
    answers.push(await alice.post(path, { secret, more: 1 }).expect(400), await alice.post(path, { secret: `${secret}\r\n` }).expect(400));
    expect(answers.at(-1)!.body.errors).toEqual([expect.objectContaining({ field: 'secret' })]);
    expect(await tablesContaining(t.db.dataSource, secret)).toEqual([]);
    await alice.delete(path).expect(204);
    await alice.delete(path).expect(404);
    expect((await alice.get(path).expect(200)).body.state).toBe('not_connected');

    const events = [];
    for (const action of ['mcp_connection.created', 'mcp_connection.revoked'])
      events.push(...(await alice.get(`/api/v1/audit-events?action=${action}`).expect(200)).body.events);
    expect(events.map((e: { action: string }) => e.action)).toEqual(['mcp_connection.created', 'mcp_connection.revoked']);
    expect(events[0].details).toEqual({ name: expect.any(String), url_origin: 'http://127.0.0.1:9' });
    for (const res of [...answers, { body: events }]) expect(JSON.stringify(res.body)).not.toContain(secret);
    expect(logLines.join('')).not.toContain(secret);
  });

  it("answers 404 for another user's server on every route and changes nothing; an admin reads the state, never the secret", async () => {
    const [alice, mallory] = [aUser(), aUser()];
    const admin = as(t.adminToken());
    const id = await serverOf(alice);
    const path = `${BASE}/${id}/connection`;
    const secret = aSecret();
    await alice.post(path, { secret }).expect(201);
    await mallory.get(path).expect(404);
    await mallory.post(path, { secret: aSecret() }).expect(404);
    await mallory.delete(path).expect(404);
    const seen = await admin.get(path).expect(200);
    expect(seen.body).toMatchObject({ state: 'connected', kind: 'user_secret' });
    expect(JSON.stringify(seen.body)).not.toContain(secret);
    await admin.post(`${path}?user_id=${alice.id}`, { secret: aSecret() }).expect(403);
    expect((await alice.get(path).expect(200)).body.updated_at).toBe(seen.body.updated_at);
  });

  it('refuses (400) to connect a server of another auth type, with a message naming it, and writes nothing', async () => {
    const alice = aUser();
    for (const [auth, message] of [
      [{ type: 'static' }, /static auth/],
      [{ type: 'oauth' }, /oauth auth: it takes no secret/],
    ] as const) {
      const id = await serverOf(alice, auth);
      const refused = await alice.post(`${BASE}/${id}/connection`, { secret: aSecret() }).expect(400);
      expect(refused.body.errors).toEqual([{ field: 'auth', message: expect.stringMatching(message) }]);
      expect((await alice.get(`${BASE}/${id}/connection`).expect(200)).body.state).toBe('not_connected');
    }
  });

  it('deleting the server forgets the connection', async () => {
    const alice = aUser();
    const id = await serverOf(alice);
    await alice.post(`${BASE}/${id}/connection`, { secret: aSecret() }).expect(201);
    await alice.delete(`${BASE}/${id}`).expect(204);
    await alice.get(`${BASE}/${id}/connection`).expect(404);
    expect(await t.db.dataSource.query('SELECT id FROM mcp_connections WHERE server_id = $1', [id])).toEqual([]);
  });
});
