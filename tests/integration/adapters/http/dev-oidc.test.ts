import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { DevTokenIssuer } from '../../../../src/adapters/auth/dev-token-issuer';
import { loadConfig } from '../../../../src/infrastructure/config/config';
import { loadConsoleConfig } from '../../../../src/infrastructure/config/console-config';
import { consoleRoutes } from '../../../../src/infrastructure/server/console-routes';

let dataDir: string;
let issuer: DevTokenIssuer;
beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'keygate-dev-oidc-'));
  issuer = DevTokenIssuer.loadOrCreate(dataDir);
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function app(env: Record<string, string>, dev: DevTokenIssuer | null) {
  const config = loadConfig({ DATA_DIR: dataDir, ...env });
  const server = express();
  server.use(...consoleRoutes(config, loadConsoleConfig(env, false), dev));
  server.use((_req, res) => void res.status(404).end());
  return server;
}

const verifier = randomBytes(48).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');

async function authorize(agent: ReturnType<typeof request>, host: string) {
  const params = {
    response_type: 'code',
    client_id: 'keygate-console',
    redirect_uri: `http://${host}/console/`,
    state: 's-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    nonce: 'n-1',
  };
  const res = await agent.post('/dev-oidc/authorize').set('Host', host).type('form').send(params);
  expect(res.status).toBe(303);
  const location = new URL(res.headers.location);
  expect(location.origin + location.pathname).toBe(`http://${host}/console/`);
  expect(location.searchParams.get('state')).toBe('s-1');
  return location.searchParams.get('code')!;
}

describe('the development OIDC provider', () => {
  it('exchanges a code once, only with the verifier of its challenge, for a development admin token', async () => {
    const server = app({}, issuer);
    const agent = request(server);
    const host = '127.0.0.1';
    const code = await authorize(agent, host);
    const exchange = (c: string, v: string) =>
      agent
        .post('/dev-oidc/token')
        .set('Host', host)
        .type('form')
        .send({
          grant_type: 'authorization_code',
          code: c,
          redirect_uri: `http://${host}/console/`,
          client_id: 'keygate-console',
          code_verifier: v,
        });
    const wrong = await exchange(code, randomBytes(48).toString('base64url'));
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'invalid_grant' });
    // The failed attempt spent the code.
    expect((await exchange(code, verifier)).body).toEqual({ error: 'invalid_grant' });

    const fresh = await authorize(agent, host);
    const ok = await exchange(fresh, verifier);
    expect(ok.status).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
    const access = jwt.decode(ok.body.access_token) as jwt.JwtPayload;
    expect(access).toMatchObject({ iss: 'keygate-dev', roles: ['admin'] });
    const id = jwt.decode(ok.body.id_token) as jwt.JwtPayload;
    expect(id).toMatchObject({ iss: `http://${host}/dev-oidc`, aud: 'keygate-console', nonce: 'n-1', sub: access.sub });
    expect((await exchange(fresh, verifier)).status).toBe(400);
  });

  it('refuses another client, redirect URI or challenge method with 400 and no code', async () => {
    const agent = request(app({}, issuer));
    const base = {
      response_type: 'code',
      client_id: 'keygate-console',
      redirect_uri: 'http://127.0.0.1/console/',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    for (const bad of [
      { client_id: 'other' },
      { redirect_uri: 'https://evil.example/console/' },
      { code_challenge_method: 'plain' },
      { code_challenge: 'short' },
    ]) {
      const res = await agent
        .get('/dev-oidc/authorize')
        .set('Host', '127.0.0.1')
        .query({ ...base, ...bad });
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
    }
    const page = await agent.get('/dev-oidc/authorize').set('Host', '127.0.0.1').query(base);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.text).not.toContain('<script');
  });

  it('publishes its discovery document, and the console names it', async () => {
    const agent = request(app({}, issuer));
    const discovery = await agent.get('/dev-oidc/.well-known/openid-configuration').set('Host', 'localhost:8080');
    expect(discovery.body).toMatchObject({ issuer: 'http://localhost:8080/dev-oidc', code_challenge_methods_supported: ['S256'] });
    const config = await agent.get('/console/config.json').set('Host', 'localhost:8080');
    expect(config.body).toEqual({ issuer: 'http://localhost:8080/dev-oidc', client_id: 'keygate-console' });
  });

  it('does not exist when JWT_JWKS_URI is set: the console names OIDC_ISSUER and allows its origin', async () => {
    const env = { JWT_JWKS_URI: 'https://idp.example.com/jwks', OIDC_ISSUER: 'https://idp.example.com/realms/k' };
    const agent = request(app(env, null));
    expect((await agent.get('/dev-oidc/.well-known/openid-configuration')).status).toBe(404);
    expect((await agent.post('/dev-oidc/token').type('form').send({ grant_type: 'authorization_code' })).status).toBe(404);
    const config = await agent.get('/console/config.json');
    expect(config.body).toEqual({ issuer: 'https://idp.example.com/realms/k', client_id: 'keygate-console' });
    expect(config.headers['content-security-policy']).toContain("connect-src 'self' https://idp.example.com");
  });
});
