import { UpstreamAuthorizationError } from '../../../../src/application/ports/upstream-authorization.port';
import { UpstreamRefusal } from '../../../../src/application/ports/upstream-refusal';
import { LocalCa, testCa } from '../../../support/local-ca';
import { failureOf, oauthClient, oauthClientFixture } from '../../../support/oauth-client-fixture';
import { ProtectedResource } from '../../../support/protected-resource';

// Each test builds its client with the options it refuses under; the resources are this file's own, on http and https.
const oauth = oauthClientFixture({ resource: false });
let ca: LocalCa;
let secure: ProtectedResource;
let plain: ProtectedResource;

beforeAll(async () => {
  ca = await testCa();
  secure = await new ProtectedResource().start({ ca });
  plain = await new ProtectedResource().start();
});
afterAll(async () => {
  await Promise.all([secure.stop(), plain.stop()]);
});
beforeEach(() => {
  for (const server of [secure, plain]) {
    server.routes.clear();
    server.hits.length = 0;
  }
});

const PRM_PATH = '/.well-known/oauth-protected-resource/mcp';
const codeOf = async (promise: Promise<unknown>) => (await failureOf(promise)).code;

describe('the OAuth client refuses', () => {
  it('an http authorization server in production, named by an https resource', async () => {
    secure.json(PRM_PATH, { resource: `${secure.origin}/mcp`, authorization_servers: [oauth.as.issuer] });
    const client = oauthClient({ production: true, ca: ca.caCert });
    const error = await failureOf(client.discover(`${secure.origin}/mcp`));
    expect(error).toBeInstanceOf(UpstreamAuthorizationError);
    expect(error.code).toBe('insecure_url');
    expect(error.message).toBe('the authorization server metadata is not an https URL');
    // The same discovery outside production reaches the server.
    await expect(oauthClient({ ca: ca.caCert }).discover(`${secure.origin}/mcp`)).resolves.toHaveProperty(
      'authorizationServer.issuer',
      oauth.as.issuer,
    );
  });

  it('an http MCP URL in production, before any request', async () => {
    plain.json(PRM_PATH, { resource: `${plain.origin}/mcp`, authorization_servers: [oauth.as.issuer] });
    secure.json('/metadata/mcp', { resource: `${plain.origin}/mcp`, authorization_servers: [oauth.as.issuer] });
    const production = oauthClient({ production: true, ca: ca.caCert });
    expect(await codeOf(production.discover(`${plain.origin}/mcp`))).toBe('insecure_url');
    // Even when its 401 names https metadata.
    expect(await codeOf(production.discover(`${plain.origin}/mcp`, `Bearer resource_metadata="${secure.origin}/metadata/mcp"`))).toBe(
      'insecure_url',
    );
    expect(plain.hits).toEqual([]);
    expect(secure.hits).toEqual([]);
  });

  it('a redirect from https to http, even outside production', async () => {
    plain.json(PRM_PATH, { resource: `${secure.origin}/mcp`, authorization_servers: [oauth.as.issuer] });
    secure.routes.set(PRM_PATH, (_req, res) => res.writeHead(302, { Location: `${plain.origin}${PRM_PATH}` }).end());
    expect(await codeOf(oauthClient({ ca: ca.caCert }).discover(`${secure.origin}/mcp`))).toBe('insecure_url');
    expect(plain.hits).toEqual([]);
  });

  it('follows a redirect that stays on https', async () => {
    secure.json('/moved', { resource: `${secure.origin}/mcp`, authorization_servers: [oauth.as.issuer] });
    secure.routes.set(PRM_PATH, (_req, res) => res.writeHead(301, { Location: '/moved' }).end());
    await expect(oauthClient({ ca: ca.caCert }).discover(`${secure.origin}/mcp`)).resolves.toHaveProperty(
      'resource',
      `${secure.origin}/mcp`,
    );
  });

  it('a metadata document larger than the cap, announced or not', async () => {
    const big = JSON.stringify({ resource: `${plain.origin}/mcp`, authorization_servers: [oauth.as.issuer], padding: 'x'.repeat(8192) });
    plain.routes.set(PRM_PATH, (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(big));
    plain.routes.set('/.well-known/oauth-protected-resource/chunked', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      for (let i = 0; i < 8; i += 1) res.write('x'.repeat(1024));
      res.end();
    });
    const client = oauthClient({ maxBytes: 4096 });
    const announced = await failureOf(client.discover(`${plain.origin}/mcp`));
    expect(announced.code).toBe('unreachable');
    expect(announced.message).toBe('the protected resource metadata answered more than 4096 bytes');
    const streamed = await failureOf(client.discover(`${plain.origin}/chunked`));
    expect(streamed.message).toBe('the protected resource metadata answered more than 4096 bytes');
  });

  it('a metadata document that does not arrive within the deadline', async () => {
    const held: { end(): void }[] = [];
    plain.routes.set(PRM_PATH, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"resource":');
      held.push(res);
    });
    try {
      const error = await failureOf(oauthClient({ timeoutMs: 300 }).discover(`${plain.origin}/mcp`));
      expect(error.code).toBe('unreachable');
      expect(error.message).toBe('the protected resource metadata did not answer within 300 ms');
    } finally {
      held.forEach((res) => res.end());
    }
  });

  it('a private address the allowlist does not admit, for the resource or the authorization server it names', async () => {
    plain.json(PRM_PATH, { resource: `${plain.origin}/mcp`, authorization_servers: [oauth.as.issuer] });
    const closed = await failureOf(oauthClient({ allowlist: [] }).discover(`${plain.origin}/mcp`));
    expect(closed).toBeInstanceOf(UpstreamRefusal);
    expect(closed.message).toBe('upstream address not allowed');
    expect(plain.hits).toEqual([]);

    // The resource is admitted by name; the authorization server it names (127.0.0.1) is not.
    const named = await new ProtectedResource().start({ host: 'localhost' });
    try {
      named.json(PRM_PATH, { resource: `${named.origin}/mcp`, authorization_servers: [oauth.as.issuer] });
      const error = await failureOf(oauthClient({ allowlist: ['localhost'] }).discover(`${named.origin}/mcp`));
      expect(named.hits).toEqual([PRM_PATH]);
      expect(error).toBeInstanceOf(UpstreamRefusal);
    } finally {
      await named.stop();
    }
  });
});
