import { accountOf, authenticate, oauthFailure } from '../../../../src/adapters/oauth-client/token-endpoint';
import { clientMetadataDocument } from '../../../../src/adapters/oauth-client/client-metadata-document';

describe('authenticate', () => {
  it('sends Basic with id and secret form-encoded first (RFC 6749 §2.3.1)', () => {
    const form = new URLSearchParams();
    const headers = authenticate({ clientId: 'a b', clientSecret: 's:é', tokenEndpointAuth: 'client_secret_basic' }, form);
    expect(Buffer.from(headers.Authorization.replace('Basic ', ''), 'base64').toString()).toBe('a%20b:s%3A%C3%A9');
    expect([...form.keys()]).toEqual([]);
  });

  it('puts id and secret in the form for client_secret_post, and the id alone for a public client', () => {
    const post = new URLSearchParams();
    expect(authenticate({ clientId: 'c', clientSecret: 's', tokenEndpointAuth: 'client_secret_post' }, post)).toEqual({});
    expect(Object.fromEntries(post)).toEqual({ client_id: 'c', client_secret: 's' });
    const none = new URLSearchParams();
    authenticate({ clientId: 'https://keygate.example.com/oauth/client', tokenEndpointAuth: 'none' }, none);
    expect(Object.fromEntries(none)).toEqual({ client_id: 'https://keygate.example.com/oauth/client' });
  });
});

describe('oauthFailure', () => {
  it('relays the server error and description within RFC 6749 characters and bounds', () => {
    const error = oauthFailure('grant_refused', 'the token endpoint refused the grant', {
      status: 400,
      body: { error: 'invalid_grant', error_description: `bad "code"\u0000${'y'.repeat(300)}` },
    });
    expect(error.message).toBe('the token endpoint refused the grant: invalid_grant');
    expect(error.oauthDescription).toBe(`bad code${'y'.repeat(192)}`);
  });

  it('names the status when the server gave no error', () => {
    expect(oauthFailure('grant_refused', 'refused', { status: 502, body: undefined }).message).toBe('refused (HTTP 502)');
  });
});

describe('clientMetadataDocument', () => {
  it('describes a public client with PKCE, code and refresh grants, whose id is its own URL', () => {
    expect(
      clientMetadataDocument('https://keygate.example.com/oauth/client', ['https://keygate.example.com/oauth/callback'], 'keygate'),
    ).toEqual({
      client_id: 'https://keygate.example.com/oauth/client',
      client_name: 'keygate',
      redirect_uris: ['https://keygate.example.com/oauth/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
  });
});

describe('accountOf', () => {
  const jwt = (claims: Record<string, unknown>) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

  it('names the account from the ID token first, then a JWT access token, by the first claim of preferred_username, email, name, sub', () => {
    expect(accountOf({ id_token: jwt({ sub: 's', email: 'a@x.example' }), access_token: jwt({ preferred_username: 'other' }) })).toBe(
      'a@x.example',
    );
    expect(accountOf({ access_token: jwt({ sub: 'user-42', name: 'Ada' }) })).toBe('Ada');
    expect(accountOf({ access_token: jwt({ sub: 'user-42' }) })).toBe('user-42');
  });

  it('names none for an opaque token, a claim that is not text, or text with control characters; cuts a long one', () => {
    expect(accountOf({ access_token: 'opaque-token' })).toBeUndefined();
    expect(accountOf({ access_token: 'a.!!!.c' })).toBeUndefined();
    expect(accountOf({ access_token: jwt({ sub: 42, email: ['x'] }) })).toBeUndefined();
    expect(accountOf({ access_token: jwt({ preferred_username: 'evil\u001b[31m', sub: 'fine' }) })).toBe('fine');
    expect(accountOf({ access_token: jwt({ sub: 'x'.repeat(500) }) })).toHaveLength(120);
  });
});
