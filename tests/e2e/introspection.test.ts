import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SCOPE_CATALOG } from '../../src/domain/scope';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { makeKey, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(30_000);

let t: TestApp;
let logs = '';
beforeAll(async () => {
  t = await startTestApp({}, undefined, { logger: createLogger('info', { write: (line: string) => void (logs += line) }) });
});
afterAll(() => t.close());

const FORM = 'application/x-www-form-urlencoded';

function introspect(form: string, jwt = t.adminToken(), type = FORM) {
  const req = request(t.app).post('/oauth/introspect').set('Content-Type', type);
  if (jwt) req.set('Authorization', `Bearer ${jwt}`);
  return req.send(form);
}

async function createKey(fields: Record<string, unknown>): Promise<TestKey & { createdAt: string }> {
  const user = randomUUID();
  const res = await request(t.app)
    .post('/api/v1/api-keys')
    .set('Authorization', `Bearer ${t.userToken(user)}`)
    .send({ name: 'introspected', ...fields })
    .expect(201);
  return { id: res.body.id, raw: res.body.raw_key, user, createdAt: res.body.created_at };
}

const epoch = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);

describe('POST /oauth/introspect', () => {
  it('describes an active key: type, granted scopes, owner, id and creation, no exp when it never expires', async () => {
    const key = await createKey({ scopes: ['projects:write', 'chat:read'] });
    const res = await introspect(`token=${key.raw}`).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      active: true,
      token_type: 'api_key',
      scope: 'projects:read projects:write chat:read',
      sub: key.user,
      jti: key.id,
      iat: epoch(key.createdAt),
    });
  });

  it('lists all twelve scopes for a full-access key', async () => {
    const key = await createKey({ scopes: [] });
    const res = await introspect(`token=${key.raw}&token_type_hint=api_key`).expect(200);
    expect(res.body.scope.split(' ')).toEqual(SCOPE_CATALOG.map((s) => s.scope));
    expect(res.body.scope.split(' ')).toHaveLength(12);
  });

  it('gives exp while a key with an expiry is active, and only {"active":false} once it has expired', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const key = await createKey({ scopes: ['models:read'], expires_at: expiresAt });
    const active = await introspect(`token=${key.raw}`).expect(200);
    expect(active.body).toMatchObject({ active: true, exp: epoch(expiresAt), iat: epoch(key.createdAt) });
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect((await introspect(`token=${key.raw}`).expect(200)).body).toEqual({ active: false });
  });

  it('answers only {"active":false} for a revoked key', async () => {
    const key = await createKey({});
    await introspect(`token=${key.raw}`).expect(200); // cached now
    await request(t.app)
      .delete(`/api/v1/api-keys/${key.id}`)
      .set('Authorization', `Bearer ${t.userToken(key.user)}`)
      .expect(204);
    expect((await introspect(`token=${key.raw}`).expect(200)).body).toEqual({ active: false });
  });

  it.each([
    ['an unknown key', `svc_${'0'.repeat(64)}`],
    ['a malformed key', 'svc_nope'],
    ['a JWT', 'eyJhbGciOiJub25lIn0.e30.'],
    ['an empty token', ''],
  ])('answers only {"active":false} for %s', async (_case, token) => {
    const res = await introspect(`token=${encodeURIComponent(token)}`).expect(200);
    expect(res.body).toEqual({ active: false });
  });

  it('is not a use of the key: last_used_at stays as it was', async () => {
    const key = await makeKey(t, []);
    await introspect(`token=${key.raw}`).expect(200);
    await t.flushLastUsed();
    const [row] = await t.db.dataSource.query('SELECT last_used_at FROM api_keys WHERE id = $1', [key.id]);
    expect(row.last_used_at).toBeNull();
  });

  describe('refusals', () => {
    let key: TestKey;
    beforeAll(async () => {
      key = await makeKey(t, ['projects:read']);
    });

    it('403 for a user who is not an admin, even for their own key', async () => {
      const res = await introspect(`token=${key.raw}`, t.userToken(key.user)).expect(403);
      expect(res.body).toMatchObject({ status: 403, type: 'urn:keygate:problem:forbidden' });
      expect(res.text).not.toContain(key.raw);
    });

    it('401 without an identity-provider token, and for a key in its place', async () => {
      await introspect(`token=${key.raw}`, '').expect(401);
      await introspect(`token=${key.raw}`, key.raw).expect(401);
    });

    it('400 without a token field, with an empty body, and with the token twice', async () => {
      for (const form of ['token_type_hint=api_key', '', `token=${key.raw}&token=${key.raw}`]) {
        const res = await introspect(form).expect(400);
        expect(res.body.errors[0].field).toBe('token');
        expect(res.text).not.toContain(key.raw);
      }
    });

    it('415 for another media type, 413 past 4 KiB or 10 parameters', async () => {
      await introspect(JSON.stringify({ token: key.raw }), t.adminToken(), 'application/json').expect(415);
      await introspect(`token=${key.raw}`, t.adminToken(), 'text/plain').expect(415);
      await introspect(`token=${key.raw}&pad=${'x'.repeat(5000)}`).expect(413);
      await introspect(Array.from({ length: 11 }, (_, i) => `p${i}=1`).join('&')).expect(413);
    });

    it('405 for another method', async () => {
      const res = await request(t.app).get('/oauth/introspect').set('Authorization', `Bearer ${t.adminToken()}`).expect(405);
      expect(res.headers.allow).toBe('POST');
    });

    it('ignores a token in the query string', async () => {
      const res = await request(t.app)
        .post(`/oauth/introspect?token=${key.raw}`)
        .set('Authorization', `Bearer ${t.adminToken()}`)
        .set('Content-Type', FORM)
        .send('')
        .expect(400);
      expect(res.body.errors[0].field).toBe('token');
    });
  });

  it('never writes a token to the log', async () => {
    const key = await makeKey(t, []);
    await introspect(`token=${key.raw}`).expect(200);
    await introspect(`token=${key.raw}`, t.userToken()).expect(403);
    expect(logs).toContain('/oauth/introspect');
    expect(logs).not.toContain(key.raw.slice('svc_'.length));
  });
});
