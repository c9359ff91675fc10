import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_ISSUER } from '../support/test-identity-provider';

const RESOURCE = 'https://keygate.test/mcp';

// The drip-fed JWKS is given up at the fetch deadline, 5 s, jest's default test timeout.
jest.setTimeout(20_000);

/** A fresh app per test (its key set starts empty), trusting tokens on /mcp too, with its log captured. */
let t: TestApp;
let logs = '';
beforeEach(async () => {
  logs = '';
  const logger = createLogger('info', { write: (line: string) => void (logs += line) });
  t = await startTestApp({ MCP_RESOURCE_URL: RESOURCE, MCP_AUTHORIZATION_SERVERS: TEST_ISSUER }, undefined, { logger });
});
afterEach(() => t.close());

const rest = (token: string) => request(t.app).get('/api/v1/api-keys').set('Authorization', `Bearer ${token}`);
const mcp = (token: string) =>
  request(t.app)
    .post('/mcp')
    .set('Authorization', `Bearer ${token}`)
    .set('Accept', 'application/json, text/event-stream')
    .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

describe("the identity provider's keys", () => {
  it('keep working for REST and /mcp tokens while tokens with made-up kids flood in', async () => {
    const flood = await Promise.all(
      Array.from({ length: 30 }, (_, i) => rest(t.userToken(randomUUID(), { header: { kid: `made-up-${i}` } }))),
    );
    expect(flood.map((res) => res.status)).toEqual(Array(30).fill(401));
    expect(flood[0].body.detail).toBe('token signing key not found');
    // Keys no request has named before: the flood's one fetch brought the whole set.
    expect((await rest(t.userToken(randomUUID(), { alg: 'RS256' }))).status).toBe(200);
    expect((await rest(t.userToken(randomUUID(), { alg: 'ES256' }))).status).toBe(200);
    expect((await mcp(t.idp.token({ sub: randomUUID(), audience: RESOURCE, alg: 'ES256' }))).status).toBe(200);
    expect(t.idp.jwksRequests).toBe(1);
  });

  it('are not taken from a JWKS larger than the byte cap, and the failure is logged without the token', async () => {
    t.idp.answer = (res, jwks) => res.end(`${jwks.slice(0, -1)},"padding":"${'x'.repeat(300 * 1024)}"}`);
    const token = t.userToken();
    const res = await rest(token);
    expect(res.status).toBe(401);
    expect(res.body.detail).toBe('token signing key not found');
    expect(logs).toContain('fetching the JWKS failed; keeping the keys held');
    expect(logs).toContain('the JWKS is larger than 262144 bytes');
    for (const part of token.split('.')) expect(logs).not.toContain(part);
  });

  it('are not waited for past the fetch deadline when the JWKS drips in', async () => {
    t.idp.answer = (res, jwks) => {
      let sent = 0;
      const timer = setInterval(() => (sent < jwks.length ? res.write(jwks[sent++]) : res.end()), 100);
      res.on('close', () => clearInterval(timer));
    };
    const res = await rest(t.userToken());
    expect(res.status).toBe(401);
    expect(logs).toContain('fetching the JWKS failed; keeping the keys held');
  });
});
