import { UpstreamAuthorizationError } from '../../../../src/application/ports/upstream-authorization.port';
import { OAuthAuthorizationServer } from '../../../support/oauth-authorization-server';
import {
  claimsOf,
  connect,
  EXCHANGE_CLIENT,
  GIVEN_CLIENT,
  oauthClient,
  REDIRECT_URI,
  startAuthorizationServer,
  startProtectedResource,
} from '../../../support/oauth-client-fixture';
import { ProtectedResource } from '../../../support/protected-resource';

const UPSTREAM_AUDIENCE = 'https://upstream.example/api';

let as: OAuthAuthorizationServer;
let resource: ProtectedResource;
/** The caller's own access token, as it would arrive on /mcp: issued to another client for keygate. */
let callerToken: string;
const client = oauthClient();

beforeAll(async () => {
  as = await startAuthorizationServer();
  resource = await startProtectedResource(as);
  const discovered = await client.discover(`${resource.origin}/mcp`);
  const registered = await client.register({
    authorizationServer: discovered.authorizationServer,
    given: GIVEN_CLIENT,
    redirectUri: REDIRECT_URI,
    clientName: 'keygate',
  });
  callerToken = (await connect(client, as, client.begin({ discovered, client: registered, redirectUri: REDIRECT_URI }), 'bob')).accessToken;
});
afterAll(async () => {
  await resource.stop();
  await as.stop();
});

const exchange = (overrides: Partial<Parameters<typeof client.exchange>[0]> = {}) =>
  client.exchange({
    tokenEndpoint: `${as.issuer}/token`,
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
      iss: as.issuer,
    });
    expect(tokens.scopes).toEqual(['mcp:tools']);
    expect(tokens.expiresAt).toBeInstanceOf(Date);
  });

  it('relays a refused subject token without repeating it', async () => {
    const forged = `${callerToken.slice(0, -4)}AAAA`;
    const error = await exchange({ subjectToken: forged }).then(
      () => null,
      (e: unknown) => e as UpstreamAuthorizationError,
    );
    expect(error!.code).toBe('grant_refused');
    expect(error!.oauthError).toBe('invalid_grant');
    expect(`${error!.message} ${error!.oauthDescription}`).not.toContain(forged.slice(0, 20));
  });

  it('is refused for a client that authenticates wrongly, without naming the secret', async () => {
    const error = await exchange({ client: { clientId: EXCHANGE_CLIENT.clientId, clientSecret: 'not-the-secret' } }).then(
      () => null,
      (e: unknown) => e as UpstreamAuthorizationError,
    );
    expect(error!.oauthError).toBe('invalid_client');
    expect(`${error!.message} ${error!.oauthDescription}`).not.toContain('not-the-secret');
  });
});
