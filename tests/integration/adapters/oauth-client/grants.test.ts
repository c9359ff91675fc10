import { UpstreamTokenSet } from '../../../../src/application/ports/upstream-authorization.port';
import { claimsOf, connect, failureOf, GIVEN_CLIENT, oauthClientFixture, REDIRECT_URI } from '../../../support/oauth-client-fixture';

const oauth = oauthClientFixture({ register: true });
const { client } = oauth;

const begin = () => client.begin({ discovered: oauth.discovered, client: oauth.registered, redirectUri: REDIRECT_URI });
/** What no error text may hold. */
const secretsOf = (...values: (string | undefined)[]) => values.filter((v): v is string => v !== undefined && v !== '');

describe('begin and complete', () => {
  it('asks with PKCE S256, state and resource, and gets a token for the resource and the user', async () => {
    const pending = begin();
    const params = new URL(pending.authorizationUrl).searchParams;
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('resource')).toBe(`${oauth.resource.origin}/mcp`);
    expect(params.get('state')).toBe(pending.state);
    expect(params.get('scope')).toBe('mcp:tools');
    const before = Date.now();
    const tokens = await connect(client, oauth.as, pending, 'alice');
    expect(claimsOf(tokens.accessToken)).toMatchObject({
      sub: 'alice',
      aud: `${oauth.resource.origin}/mcp`,
      iss: oauth.as.issuer,
      scope: 'mcp:tools',
    });
    expect(tokens.scopes).toEqual(['mcp:tools']);
    expect(tokens.refreshToken).toEqual(expect.any(String));
    expect(tokens.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 3600_000 - 5000);
  });

  it('refuses a callback whose state is not the pending one, and never sends its code', async () => {
    const pending = begin();
    const back = await oauth.as.authorize(pending.authorizationUrl, REDIRECT_URI);
    const error = await failureOf(client.complete(pending, { code: back.code!, state: 'forged', iss: back.iss! }));
    expect(error.code).toBe('callback_mismatch');
    // The code was not spent: with the right state it still works.
    await expect(client.complete(pending, { code: back.code!, state: back.state!, iss: back.iss! })).resolves.toHaveProperty('accessToken');
  });

  it('is refused by the server when the verifier is not the one of the challenge, without naming code or verifier', async () => {
    const pending = begin();
    const back = await oauth.as.authorize(pending.authorizationUrl, REDIRECT_URI);
    const other = begin();
    const error = await failureOf(
      client.complete({ ...pending, codeVerifier: other.codeVerifier }, { code: back.code!, state: back.state!, iss: back.iss! }),
    );
    expect(error.code).toBe('grant_refused');
    expect(error.oauthError).toBe('invalid_grant');
    const text = `${error.message} ${error.oauthDescription} ${JSON.stringify(error)}`;
    for (const secret of secretsOf(back.code!, pending.codeVerifier, other.codeVerifier, GIVEN_CLIENT.clientSecret))
      expect(text).not.toContain(secret);
  });

  it('relays a user refusal', async () => {
    const pending = begin();
    const back = await oauth.as.authorize(pending.authorizationUrl, REDIRECT_URI, { deny: true });
    const error = await failureOf(client.complete(pending, { state: back.state!, iss: back.iss!, error: back.error! }));
    expect(error.code).toBe('authorization_denied');
    expect(error.oauthError).toBe('access_denied');
  });
});

describe('refresh', () => {
  let tokens: UpstreamTokenSet;
  beforeAll(async () => {
    tokens = await connect(client, oauth.as, begin(), 'alice');
  });

  it('gets a new access token and a rotated refresh token; the old refresh token is refused after', async () => {
    const refreshed = await client.refresh({
      authorizationServer: oauth.discovered.authorizationServer,
      client: oauth.registered,
      refreshToken: tokens.refreshToken!,
      resource: oauth.discovered.resource,
    });
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(refreshed.refreshToken).toEqual(expect.any(String));
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
    expect(claimsOf(refreshed.accessToken)).toMatchObject({ sub: 'alice', aud: `${oauth.resource.origin}/mcp` });
    const error = await failureOf(
      client.refresh({
        authorizationServer: oauth.discovered.authorizationServer,
        client: oauth.registered,
        refreshToken: tokens.refreshToken!,
        resource: oauth.discovered.resource,
      }),
    );
    expect(error.code).toBe('grant_refused');
    expect(error.oauthError).toBe('invalid_grant');
    for (const secret of secretsOf(tokens.refreshToken, refreshed.refreshToken))
      expect(`${error.message} ${error.oauthDescription}`).not.toContain(secret);
  });
});

describe('revoke', () => {
  it('revokes a refresh token at the revocation endpoint (RFC 7009), after which it is refused', async () => {
    const tokens = await connect(client, oauth.as, begin(), 'alice');
    const input = { authorizationServer: oauth.discovered.authorizationServer, client: oauth.registered };
    await expect(client.revoke({ ...input, token: tokens.refreshToken!, tokenTypeHint: 'refresh_token' })).resolves.toEqual({
      revoked: true,
    });
    const error = await failureOf(client.refresh({ ...input, refreshToken: tokens.refreshToken!, resource: oauth.discovered.resource }));
    expect(error.oauthError).toBe('invalid_grant');
  });

  it('only says so when the server has no revocation endpoint', async () => {
    const { revocationEndpoint: _, ...withoutRevocation } = oauth.discovered.authorizationServer;
    const tokens = await connect(client, oauth.as, begin(), 'alice');
    await expect(
      client.revoke({
        authorizationServer: withoutRevocation,
        client: oauth.registered,
        token: tokens.refreshToken!,
        tokenTypeHint: 'refresh_token',
      }),
    ).resolves.toEqual({ revoked: false });
    // Nothing was sent: the refresh token still works.
    await expect(
      client.refresh({
        authorizationServer: oauth.discovered.authorizationServer,
        client: oauth.registered,
        refreshToken: tokens.refreshToken!,
        resource: oauth.discovered.resource,
      }),
    ).resolves.toHaveProperty('accessToken');
  });

  it('relays a refused revocation (a wrong client secret)', async () => {
    const tokens = await connect(client, oauth.as, begin(), 'alice');
    const error = await failureOf(
      client.revoke({
        authorizationServer: oauth.discovered.authorizationServer,
        client: { ...oauth.registered, clientSecret: 'wrong-secret' },
        token: tokens.refreshToken!,
        tokenTypeHint: 'refresh_token',
      }),
    );
    expect(error.code).toBe('revocation_failed');
    expect(error.oauthError).toBe('invalid_client');
    expect(`${error.message} ${error.oauthDescription}`).not.toContain('wrong-secret');
  });
});
