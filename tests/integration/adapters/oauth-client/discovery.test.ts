import { UpstreamAuthorizationError } from '../../../../src/application/ports/upstream-authorization.port';
import { challengeOf, failureOf, oauthClientFixture } from '../../../support/oauth-client-fixture';

const oauth = oauthClientFixture();
const { client } = oauth;

beforeEach(() => {
  oauth.resource.hits.length = 0;
});

describe('discover', () => {
  it('follows the 401 resource_metadata, then finds the authorization server by OpenID Connect discovery', async () => {
    const mcpUrl = `${oauth.resource.origin}/mcp`;
    const found = await client.discover(mcpUrl, await challengeOf(mcpUrl));
    expect(oauth.resource.hits).toEqual(['/mcp', '/metadata/mcp']);
    expect(found.resource).toBe(mcpUrl);
    expect(found.protectedResource.authorizationServers).toEqual([oauth.as.issuer]);
    // oidc-provider serves no RFC 8414 document: its 404 passes on to /.well-known/openid-configuration.
    expect(found.authorizationServer).toMatchObject({
      issuer: oauth.as.issuer,
      authorizationEndpoint: `${oauth.as.issuer}/auth`,
      tokenEndpoint: `${oauth.as.issuer}/token`,
      registrationEndpoint: `${oauth.as.issuer}/reg`,
      revocationEndpoint: `${oauth.as.issuer}/token/revocation`,
      issParameterSupported: true,
    });
    expect(found.scopes).toEqual(['mcp:tools']);
  });

  it('without a challenge, reads the well-known URL with the path inserted', async () => {
    const found = await client.discover(`${oauth.resource.origin}/mcp`);
    expect(oauth.resource.hits).toEqual(['/.well-known/oauth-protected-resource/mcp']);
    expect(found.resource).toBe(`${oauth.resource.origin}/mcp`);
    expect(found.authorizationServer.issuer).toBe(oauth.as.issuer);
  });

  it('falls back to the root well-known URL, whose resource covers the path', async () => {
    oauth.resource.json('/.well-known/oauth-protected-resource', {
      resource: oauth.resource.origin,
      authorization_servers: [oauth.as.issuer],
    });
    try {
      const found = await client.discover(`${oauth.resource.origin}/team/mcp`);
      expect(oauth.resource.hits).toEqual(['/.well-known/oauth-protected-resource/team/mcp', '/.well-known/oauth-protected-resource']);
      expect(found.resource).toBe(oauth.resource.origin);
      expect(found.scopes).toEqual([]);
    } finally {
      oauth.resource.routes.delete('/.well-known/oauth-protected-resource');
    }
  });

  it("prefers the challenge's scope to the scopes the resource supports", async () => {
    const found = await client.discover(
      `${oauth.resource.origin}/mcp`,
      `Bearer resource_metadata="${oauth.resource.origin}/metadata/mcp", scope="mcp:read"`,
    );
    expect(found.scopes).toEqual(['mcp:read']);
  });

  it('refuses metadata that names another resource (RFC 9728 §3.3)', async () => {
    oauth.resource.json('/metadata/other', { resource: 'https://elsewhere.example/mcp', authorization_servers: [oauth.as.issuer] });
    const error = await failureOf(
      client.discover(`${oauth.resource.origin}/mcp`, `Bearer resource_metadata="${oauth.resource.origin}/metadata/other"`),
    );
    expect(error).toBeInstanceOf(UpstreamAuthorizationError);
    expect(error.code).toBe('discovery_failed');
  });

  it('says so when no metadata is found', async () => {
    const error = await failureOf(client.discover(`${oauth.resource.origin}/nothing/here`));
    expect(error.code).toBe('discovery_failed');
    expect((error as Error).message).toBe('the protected resource metadata was not found (HTTP 404)');
  });
});
