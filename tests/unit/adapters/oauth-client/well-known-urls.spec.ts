import { authorizationServerMetadataUrls, protectedResourceMetadataUrls } from '../../../../src/adapters/oauth-client/well-known-urls';

describe('protectedResourceMetadataUrls', () => {
  it('inserts the well-known suffix before the path, then tries the root (RFC 9728 §3.1)', () => {
    expect(protectedResourceMetadataUrls('https://example.com/public/mcp')).toEqual([
      'https://example.com/.well-known/oauth-protected-resource/public/mcp',
      'https://example.com/.well-known/oauth-protected-resource',
    ]);
  });

  it('asks the root once for a resource without a path', () => {
    expect(protectedResourceMetadataUrls('https://example.com')).toEqual(['https://example.com/.well-known/oauth-protected-resource']);
    expect(protectedResourceMetadataUrls('https://example.com:8443/')).toEqual([
      'https://example.com:8443/.well-known/oauth-protected-resource',
    ]);
  });
});

describe('authorizationServerMetadataUrls', () => {
  it('tries RFC 8414 then OpenID Connect discovery for an issuer without a path', () => {
    expect(authorizationServerMetadataUrls('https://auth.example.com')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server',
      'https://auth.example.com/.well-known/openid-configuration',
    ]);
  });

  it('tries path insertion for both, then OpenID Connect appended, for an issuer with a path', () => {
    expect(authorizationServerMetadataUrls('https://auth.example.com/tenant1')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://auth.example.com/.well-known/openid-configuration/tenant1',
      'https://auth.example.com/tenant1/.well-known/openid-configuration',
    ]);
  });
});
