import { bearerChallengeParams } from '../../../../src/adapters/oauth-client/www-authenticate';

describe('bearerChallengeParams', () => {
  it('reads resource_metadata and scope of a Bearer challenge', () => {
    const params = bearerChallengeParams(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read files:write"',
    );
    expect(params.get('resource_metadata')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
    expect(params.get('scope')).toBe('files:read files:write');
  });

  it('reads the Bearer challenge among others, with token values and escapes', () => {
    const params = bearerChallengeParams(
      'Basic realm="x", Bearer error=invalid_token, Resource_Metadata="https://a.example/m\\"d", DPoP algs="ES256"',
    );
    expect(params.get('error')).toBe('invalid_token');
    expect(params.get('resource_metadata')).toBe('https://a.example/m"d');
    expect(params.has('algs')).toBe(false);
    expect(params.has('realm')).toBe(false);
  });

  it('is empty without a Bearer challenge', () => {
    expect(bearerChallengeParams('Basic realm="x"').size).toBe(0);
    expect(bearerChallengeParams('Bearer').size).toBe(0);
    expect(bearerChallengeParams('').size).toBe(0);
  });
});
