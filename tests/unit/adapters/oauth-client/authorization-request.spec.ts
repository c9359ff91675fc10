import { PendingAuthorization, UpstreamAuthorizationError } from '../../../../src/application/ports/upstream-authorization.port';
import { authorizationUrl, callbackCode } from '../../../../src/adapters/oauth-client/authorization-request';

describe('authorizationUrl', () => {
  it('carries the code flow, PKCE S256, state, resource and scopes, keeping the endpoint own query', () => {
    const url = new URL(
      authorizationUrl({
        authorizationEndpoint: 'https://auth.example.com/authorize?tenant=a',
        clientId: 'client-1',
        redirectUri: 'https://keygate.example.com/oauth/callback',
        state: 'state-1',
        codeChallenge: 'challenge-1',
        resource: 'https://mcp.example.com/mcp',
        scopes: ['files:read', 'files:write'],
      }),
    );
    expect(url.origin + url.pathname).toBe('https://auth.example.com/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      tenant: 'a',
      response_type: 'code',
      client_id: 'client-1',
      redirect_uri: 'https://keygate.example.com/oauth/callback',
      state: 'state-1',
      code_challenge: 'challenge-1',
      code_challenge_method: 'S256',
      resource: 'https://mcp.example.com/mcp',
      scope: 'files:read files:write',
    });
  });

  it('leaves scope out when none is asked for', () => {
    const url = new URL(
      authorizationUrl({
        authorizationEndpoint: 'https://auth.example.com/authorize',
        clientId: 'c',
        redirectUri: 'https://k/cb',
        state: 's',
        codeChallenge: 'x',
        resource: 'https://mcp.example.com',
        scopes: [],
      }),
    );
    expect(url.searchParams.has('scope')).toBe(false);
  });
});

describe('callbackCode', () => {
  const pending = (issParameterSupported = true): PendingAuthorization => ({
    authorizationUrl: 'https://auth.example.com/authorize?…',
    state: 'the-state',
    codeVerifier: 'the-verifier',
    redirectUri: 'https://k/cb',
    resource: 'https://mcp.example.com/mcp',
    scopes: [],
    client: { issuer: 'https://auth.example.com', clientId: 'c', tokenEndpointAuth: 'none', source: 'given' },
    authorizationServer: {
      issuer: 'https://auth.example.com',
      authorizationEndpoint: 'https://auth.example.com/authorize',
      tokenEndpoint: 'https://auth.example.com/token',
      clientIdMetadataDocumentSupported: false,
      issParameterSupported,
    },
  });
  const failure = (fn: () => unknown): UpstreamAuthorizationError => {
    try {
      fn();
    } catch (error) {
      return error as UpstreamAuthorizationError;
    }
    throw new Error('did not throw');
  };

  it('returns the code of a callback with the pending state and issuer', () => {
    expect(callbackCode(pending(), { code: 'the-code', state: 'the-state', iss: 'https://auth.example.com' })).toBe('the-code');
    expect(callbackCode(pending(false), { code: 'the-code', state: 'the-state' })).toBe('the-code');
  });

  it.each([
    ['another state', { code: 'the-code', state: 'other-state', iss: 'https://auth.example.com' }],
    ['no state', { code: 'the-code', iss: 'https://auth.example.com' }],
    ['another issuer', { code: 'the-code', state: 'the-state', iss: 'https://evil.example.com' }],
    ['no issuer from a server that sends one', { code: 'the-code', state: 'the-state' }],
    ['no code', { state: 'the-state', iss: 'https://auth.example.com' }],
  ])('refuses a callback with %s, naming neither code nor state', (_why, callback) => {
    const error = failure(() => callbackCode(pending(), callback));
    expect(error).toBeInstanceOf(UpstreamAuthorizationError);
    expect(error.code).toBe('callback_mismatch');
    expect(error.message).not.toMatch(/the-code|the-state|other-state|the-verifier/);
  });

  it('relays a refusal, bounded', () => {
    const error = failure(() =>
      callbackCode(pending(), {
        state: 'the-state',
        iss: 'https://auth.example.com',
        error: 'access_denied',
        errorDescription: `no\n${'x'.repeat(500)}`,
      }),
    );
    expect(error.code).toBe('authorization_denied');
    expect(error.oauthError).toBe('access_denied');
    expect(error.oauthDescription).toBe(`no${'x'.repeat(198)}`);
  });
});
