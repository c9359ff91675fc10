import { claimsOf, connect, EXCHANGE_CLIENT, failureOf, oauthClientFixture, REDIRECT_URI } from '../../../support/oauth-client-fixture';

const UPSTREAM_AUDIENCE = 'https://upstream.example/api';

const oauth = oauthClientFixture({ register: true });
const { client } = oauth;
/** The caller's own access token, as it would arrive on /mcp: issued to another client for keygate. */
let callerToken: string;

beforeAll(async () => {
  const pending = client.begin({ discovered: oauth.discovered, client: oauth.registered, redirectUri: REDIRECT_URI });
  callerToken = (await connect(client, oauth.as, pending, 'bob')).accessToken;
});

const exchange = (overrides: Partial<Parameters<typeof client.exchange>[0]> = {}) =>
  client.exchange({
    tokenEndpoint: `${oauth.as.issuer}/token`,
    client: EXCHANGE_CLIENT,
    subjectToken: callerToken,
    audience: UPSTREAM_AUDIENCE,
    ...overrides,
  });

describe('exchange (RFC 8693)', () => {
  it("exchanges the caller's access token for one for the upstream audience, on behalf of the same user", async () => {
    const tokens = await exchange({ scopes: ['mcp:tools'] });
    expect(claimsOf(tokens.accessToken)).toMatchObject({
      sub: 'bob',
      aud: UPSTREAM_AUDIENCE,
      client_id: EXCHANGE_CLIENT.clientId,
      iss: oauth.as.issuer,
    });
    expect(tokens.scopes).toEqual(['mcp:tools']);
    expect(tokens.expiresAt).toBeInstanceOf(Date);
  });

  it('relays a refused subject token without repeating it', async () => {
    const forged = `${callerToken.slice(0, -4)}AAAA`;
    const error = await failureOf(exchange({ subjectToken: forged }));
    expect(error.code).toBe('grant_refused');
    expect(error.oauthError).toBe('invalid_grant');
    expect(`${error.message} ${error.oauthDescription}`).not.toContain(forged.slice(0, 20));
  });

  it('is refused for a client that authenticates wrongly, without naming the secret', async () => {
    const error = await failureOf(exchange({ client: { clientId: EXCHANGE_CLIENT.clientId, clientSecret: 'not-the-secret' } }));
    expect(error.oauthError).toBe('invalid_client');
    expect(`${error.message} ${error.oauthDescription}`).not.toContain('not-the-secret');
  });
});
