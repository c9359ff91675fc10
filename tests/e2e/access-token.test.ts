import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_AUDIENCE, TEST_ISSUER } from '../support/test-identity-provider';

let t: TestApp;
let logs = '';
beforeAll(async () => {
  t = await startTestApp({}, undefined, { logger: createLogger('debug', { write: (line: string) => void (logs += line) }) });
});
afterAll(() => t.close());

const list = (authorization?: string) => {
  const req = request(t.app).get('/api/v1/api-keys');
  return authorization === undefined ? req : req.set('Authorization', authorization);
};

function expect401(res: request.Response) {
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

describe('identity-provider JWTs on /api/v1/api-keys', () => {
  it('accepts RS256 and ES256 tokens from the JWKS', async () => {
    expect((await list(`Bearer ${t.idp.token({ sub: randomUUID(), alg: 'RS256' })}`)).status).toBe(200);
    expect((await list(`Bearer ${t.idp.token({ sub: randomUUID(), alg: 'ES256' })}`)).status).toBe(200);
  });

  it.each([
    ['no Authorization header', undefined],
    ['a scheme other than Bearer', 'Basic dXNlcjpwdw=='],
    ['a malformed token', 'Bearer not.a.jwt'],
  ])('answers 401 for %s', async (_case, header) => {
    expect401(await list(header));
  });

  it('answers 401 for an expired token', async () => {
    expect401(await list(`Bearer ${t.idp.token({ sub: randomUUID(), expiresIn: -10 })}`));
  });

  it('answers 401 for a token signed by a key outside the JWKS', async () => {
    expect401(await list(`Bearer ${t.idp.tokenFromStranger({ sub: randomUUID() })}`));
  });

  it('answers 401 for a wrong issuer or audience without naming the accepted ones', async () => {
    const wrongIssuer = await list(`Bearer ${t.idp.token({ sub: randomUUID(), issuer: 'https://evil.test/' })}`);
    const wrongAudience = await list(`Bearer ${t.idp.token({ sub: randomUUID(), audience: 'someone-else' })}`);
    for (const res of [wrongIssuer, wrongAudience]) {
      expect401(res);
      expect(res.text).not.toContain(TEST_ISSUER);
      expect(res.text).not.toContain(TEST_AUDIENCE);
    }
    expect(wrongIssuer.body.detail).toBe('token issuer not accepted');
    expect(wrongAudience.body.detail).toBe('token audience not accepted');
  });

  it('answers 401 for a token without exp, however valid otherwise', async () => {
    const res = await list(`Bearer ${t.idp.token({ sub: randomUUID(), expiresIn: null })}`);
    expect401(res);
    expect(res.body.detail).toBe('token has no expiry');
  });

  it.each([
    ['an exp of 1e300', { expiresIn: null, extra: { exp: 1e300 } }],
    ['an exp a second past 24 h from iat', { expiresIn: 86_401 }],
    ['no iat and an exp 25 h from now', { noIat: true, expiresIn: 25 * 3600 }],
    ['an iat in the future and an exp a minute after it', { extra: { iat: 4_000_000_000 }, expiresIn: 60 }],
  ])('answers 401 for a token valid for longer than JWT_MAX_LIFETIME_SECONDS (24 h by default): %s', async (_case, options) => {
    const res = await list(`Bearer ${t.idp.token({ sub: randomUUID(), ...options })}`);
    expect401(res);
    expect(res.body.detail).toBe('token lifetime too long');
  });

  it('accepts a token valid for exactly JWT_MAX_LIFETIME_SECONDS, with or without iat', async () => {
    expect((await list(`Bearer ${t.idp.token({ sub: randomUUID(), expiresIn: 86_400 })}`)).status).toBe(200);
    expect((await list(`Bearer ${t.idp.token({ sub: randomUUID(), noIat: true, expiresIn: 3600 })}`)).status).toBe(200);
  });

  it.each([
    ['an extension it does not understand', ['urn:example:ext']],
    ['a registered claim', ['exp']],
    ['an empty list', []],
    ['a value that is not a list', 'urn:example:ext'],
  ])('answers 401 for a crit header, here %s (RFC 7515 section 4.1.11)', async (_case, crit) => {
    for (const alg of ['RS256', 'ES256'] as const) {
      const token = t.idp.token({ sub: randomUUID(), alg, header: { crit, 'urn:example:ext': true } });
      const res = await list(`Bearer ${token}`);
      expect401(res);
      expect(res.body.detail).toBe('token uses unsupported critical extensions');
    }
  });

  it('says what was wrong in general terms', async () => {
    const detail = async (token: string) => (await list(`Bearer ${token}`)).body.detail;
    expect(await detail(t.idp.token({ sub: randomUUID(), expiresIn: -10 }))).toBe('token expired');
    expect(await detail(t.idp.tokenFromStranger({ sub: randomUUID() }))).toBe('token signature invalid');
    expect(await detail('not.a.jwt')).toBe('token malformed');
    expect(
      await detail(jwt.sign({ sub: randomUUID(), iss: TEST_ISSUER, aud: TEST_AUDIENCE }, 'shared-secret', { algorithm: 'HS256' })),
    ).toBe('token algorithm not accepted');
    expect(await detail(t.idp.token({ sub: 'alice' }))).toBe('token subject must be a UUID');
  });

  it('logs the particulars of a refusal, never the token', async () => {
    const token = t.idp.token({ sub: randomUUID(), audience: 'someone-else' });
    const from = logs.length;
    expect401(await list(`Bearer ${token}`));
    const written = logs.slice(from);
    const refusal = written
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .find((line) => line.msg === 'access token refused');
    expect(refusal).toMatchObject({ level: 40, reason: 'token audience not accepted' });
    expect(refusal.detail).toContain(TEST_AUDIENCE);
    expect(refusal.req.id).toEqual(expect.any(String));
    for (const part of token.split('.')) expect(written).not.toContain(part);
  });

  it('answers 401 for HS256 and alg=none tokens', async () => {
    const claims = { sub: randomUUID(), iss: TEST_ISSUER, aud: TEST_AUDIENCE };
    expect401(await list(`Bearer ${jwt.sign(claims, 'shared-secret', { algorithm: 'HS256' })}`));
    const none = jwt.sign(claims, '', { algorithm: 'none' });
    expect401(await list(`Bearer ${none}`));
  });

  it('answers 401 when sub is missing or not a UUID', async () => {
    expect401(await list(`Bearer ${t.idp.token({})}`));
    expect401(await list(`Bearer ${t.idp.token({ sub: 'alice' })}`));
  });

  it('treats only tokens whose roles claim holds the admin role as admins', async () => {
    const other = randomUUID();
    const asRoles = (roles: unknown) => list(`Bearer ${t.idp.token({ sub: randomUUID(), roles })}`).query({ user_id: other });
    expect((await list(`Bearer ${t.idp.token({ sub: randomUUID(), roles: ['admin'] })}`).query({ user_id: other })).status).toBe(200);
    expect((await asRoles('admin')).status).toBe(403);
    expect((await asRoles(['viewer'])).status).toBe(403);
  });
});

describe('the Bearer challenge (RFC 6750 section 3.1)', () => {
  it('names no error when no credentials were sent, and invalid_token when bad ones were', async () => {
    expect((await list()).headers['www-authenticate']).toBe('Bearer realm="keygate"');
    expect((await list('Bearer not.a.jwt')).headers['www-authenticate']).toBe('Bearer realm="keygate", error="invalid_token"');
    const noKey = await request(t.app).post('/mcp').send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(noKey.headers['www-authenticate']).toBe('Bearer realm="keygate"');
    const badKey = await request(t.app).post('/mcp').set('X-API-Key', 'svc_nope').send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(badKey.headers['www-authenticate']).toBe('Bearer realm="keygate", error="invalid_token"');
  });
});
