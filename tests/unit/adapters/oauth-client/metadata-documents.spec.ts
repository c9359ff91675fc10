import { UpstreamAuthorizationError } from '../../../../src/application/ports/upstream-authorization.port';
import { authorizationServerMetadata, protectedResourceMetadata } from '../../../../src/adapters/oauth-client/metadata-documents';

const AS = {
  issuer: 'https://auth.example.com',
  authorization_endpoint: 'https://auth.example.com/authorize',
  token_endpoint: 'https://auth.example.com/token',
  code_challenge_methods_supported: ['S256'],
};

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    return (error as UpstreamAuthorizationError).code;
  }
  return 'none';
};

describe('protectedResourceMetadata', () => {
  it('reads the canonical resource, the authorization servers and scopes', () => {
    expect(
      protectedResourceMetadata({
        resource: 'HTTPS://MCP.example.com/mcp',
        authorization_servers: ['https://auth.example.com', 7],
        scopes_supported: ['a', 'b'],
      }),
    ).toEqual({ resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://auth.example.com'], scopesSupported: ['a', 'b'] });
  });

  it.each([[null], ['text'], [{ authorization_servers: ['https://a'] }], [{ resource: 'https://m', authorization_servers: [] }]])(
    'refuses %j',
    (body) => expect(codeOf(() => protectedResourceMetadata(body))).toBe('discovery_failed'),
  );
});

describe('authorizationServerMetadata', () => {
  it('reads the endpoints and capabilities keygate acts on', () => {
    expect(
      authorizationServerMetadata(
        {
          ...AS,
          registration_endpoint: 'https://auth.example.com/register',
          revocation_endpoint: 'https://auth.example.com/revoke',
          client_id_metadata_document_supported: true,
          authorization_response_iss_parameter_supported: true,
          token_endpoint_auth_methods_supported: ['client_secret_post'],
        },
        'https://auth.example.com/',
      ),
    ).toMatchObject({
      issuer: 'https://auth.example.com',
      registrationEndpoint: 'https://auth.example.com/register',
      revocationEndpoint: 'https://auth.example.com/revoke',
      clientIdMetadataDocumentSupported: true,
      issParameterSupported: true,
      tokenEndpointAuthMethodsSupported: ['client_secret_post'],
    });
  });

  it('refuses a document of another issuer (RFC 8414 §3.3)', () => {
    expect(codeOf(() => authorizationServerMetadata(AS, 'https://other.example.com'))).toBe('discovery_failed');
    expect(codeOf(() => authorizationServerMetadata({ ...AS, issuer: 'https://auth.example.com/t1' }, 'https://auth.example.com'))).toBe(
      'discovery_failed',
    );
  });

  it('refuses a server that does not list PKCE S256, as the MCP spec asks', () => {
    expect(codeOf(() => authorizationServerMetadata({ ...AS, code_challenge_methods_supported: ['plain'] }, AS.issuer))).toBe(
      'unsupported',
    );
    const { code_challenge_methods_supported: _, ...withoutPkce } = AS;
    expect(codeOf(() => authorizationServerMetadata(withoutPkce, AS.issuer))).toBe('unsupported');
  });

  it('refuses a document without a token endpoint', () => {
    const { token_endpoint: _, ...partial } = AS;
    expect(codeOf(() => authorizationServerMetadata(partial, AS.issuer))).toBe('discovery_failed');
  });
});
