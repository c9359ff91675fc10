import { UpstreamAuthorizationError } from '../../../../src/application/ports/upstream-authorization.port';
import { OAuthAuthorizationServer } from '../../../support/oauth-authorization-server';
import { challengeOf, oauthClient, startAuthorizationServer, startProtectedResource } from '../../../support/oauth-client-fixture';
import { ProtectedResource } from '../../../support/protected-resource';

let as: OAuthAuthorizationServer;
let resource: ProtectedResource;
const client = oauthClient();

beforeAll(async () => {
  as = await startAuthorizationServer();
  resource = await startProtectedResource(as);
});
afterAll(async () => {
  await resource.stop();
  await as.stop();
});
beforeEach(() => {
  resource.hits.length = 0;
});

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('resolved');
    },
    (error: unknown) => error,
  );

describe('discover', () => {
  it('follows the 401 resource_metadata, then finds the authorization server by OpenID Connect discovery', async () => {
    const mcpUrl = `${resource.origin}/mcp`;
    const found = await client.discover(mcpUrl, await challengeOf(mcpUrl));
    expect(resource.hits).toEqual(['/mcp', '/metadata/mcp']);
    expect(found.resource).toBe(mcpUrl);
    expect(found.protectedResource.authorizationServers).toEqual([as.issuer]);
    // oidc-provider serves no RFC 8414 document: its 404 passes on to /.well-known/openid-configuration.
    expect(found.authorizationServer).toMatchObject({
      issuer: as.issuer,
      authorizationEndpoint: `${as.issuer}/auth`,
      tokenEndpoint: `${as.issuer}/token`,
      registrationEndpoint: `${as.issuer}/reg`,
      revocationEndpoint: `${as.issuer}/token/revocation`,
      issParameterSupported: true,
    });
    expect(found.scopes).toEqual(['mcp:tools']);
  });

  it('without a challenge, reads the well-known URL with the path inserted', async () => {
    const found = await client.discover(`${resource.origin}/mcp`);
    expect(resource.hits).toEqual(['/.well-known/oauth-protected-resource/mcp']);
    expect(found.resource).toBe(`${resource.origin}/mcp`);
    expect(found.authorizationServer.issuer).toBe(as.issuer);
  });

  it('falls back to the root well-known URL, whose resource covers the path', async () => {
    resource.json('/.well-known/oauth-protected-resource', { resource: resource.origin, authorization_servers: [as.issuer] });
    try {
      const found = await client.discover(`${resource.origin}/team/mcp`);
      expect(resource.hits).toEqual(['/.well-known/oauth-protected-resource/team/mcp', '/.well-known/oauth-protected-resource']);
      expect(found.resource).toBe(resource.origin);
      expect(found.scopes).toEqual([]);
    } finally {
      resource.routes.delete('/.well-known/oauth-protected-resource');
    }
  });

  it("prefers the challenge's scope to the scopes the resource supports", async () => {
    const found = await client.discover(
      `${resource.origin}/mcp`,
      `Bearer resource_metadata="${resource.origin}/metadata/mcp", scope="mcp:read"`,
    );
    expect(found.scopes).toEqual(['mcp:read']);
  });

  it('refuses metadata that names another resource (RFC 9728 §3.3)', async () => {
    resource.json('/metadata/other', { resource: 'https://elsewhere.example/mcp', authorization_servers: [as.issuer] });
    const error = await failureOf(
      client.discover(`${resource.origin}/mcp`, `Bearer resource_metadata="${resource.origin}/metadata/other"`),
    );
    expect(error).toBeInstanceOf(UpstreamAuthorizationError);
    expect((error as UpstreamAuthorizationError).code).toBe('discovery_failed');
  });

  it('says so when no metadata is found', async () => {
    const error = await failureOf(client.discover(`${resource.origin}/nothing/here`));
    expect((error as UpstreamAuthorizationError).code).toBe('discovery_failed');
    expect((error as Error).message).toBe('the protected resource metadata was not found (HTTP 404)');
  });
});
