import { clientMetadataDocument } from '../../../../src/adapters/oauth-client/client-metadata-document';
import { AuthorizationServerMetadata, UpstreamAuthorizationError } from '../../../../src/application/ports/upstream-authorization.port';
import { LocalCa, serveJsonOverHttps, testCa } from '../../../support/local-ca';
import { claimsOf, connect, failureOf, GIVEN_CLIENT, oauthClientFixture, REDIRECT_URI } from '../../../support/oauth-client-fixture';

let ca: LocalCa;
let cimd: Awaited<ReturnType<typeof serveJsonOverHttps>>;
let documentUrl: string;
beforeAll(async () => {
  ca = await testCa();
  // keygate's Client ID Metadata Document, served over https as the draft requires; the route that serves it comes later.
  cimd = await serveJsonOverHttps(ca, { '/oauth/client': () => clientMetadataDocument(documentUrl, [REDIRECT_URI], 'keygate') });
  documentUrl = `${cimd.origin}/oauth/client`;
});
// After the CA's beforeAll: the authorization server trusts it to fetch the document.
const oauth = oauthClientFixture({ cimdCa: () => ca.caCert, discover: true });
const { client } = oauth;
afterAll(async () => {
  await cimd.close();
});

const registration = (overrides: Partial<Parameters<typeof client.register>[0]> = {}) =>
  client.register({
    authorizationServer: oauth.discovered.authorizationServer,
    redirectUri: REDIRECT_URI,
    clientName: 'keygate',
    ...overrides,
  });

describe('register', () => {
  it('uses the server record client first, even where the others are offered', async () => {
    expect(oauth.discovered.authorizationServer.clientIdMetadataDocumentSupported).toBe(true);
    const client1 = await registration({ given: GIVEN_CLIENT, metadataDocumentUrl: documentUrl });
    expect(client1).toEqual({
      issuer: oauth.as.issuer,
      clientId: GIVEN_CLIENT.clientId,
      clientSecret: GIVEN_CLIENT.clientSecret,
      tokenEndpointAuth: 'client_secret_basic',
      source: 'given',
    });
    expect(cimd.hits.size).toBe(0);
  });

  it('then the Client ID Metadata Document, which the server fetches when the user authorizes', async () => {
    const registered = await registration({ metadataDocumentUrl: documentUrl });
    expect(registered).toEqual({ issuer: oauth.as.issuer, clientId: documentUrl, tokenEndpointAuth: 'none', source: 'metadata_document' });
    const tokens = await connect(
      client,
      oauth.as,
      client.begin({ discovered: oauth.discovered, client: registered, redirectUri: REDIRECT_URI }),
    );
    expect(cimd.hits.get('/oauth/client')).toBeGreaterThan(0);
    expect(claimsOf(tokens.accessToken)).toMatchObject({ client_id: documentUrl, aud: `${oauth.resource.origin}/mcp` });
  });

  it('then dynamic registration (RFC 7591), whose client then works', async () => {
    const registered = await registration();
    expect(registered).toMatchObject({ issuer: oauth.as.issuer, tokenEndpointAuth: 'client_secret_basic', source: 'dynamic' });
    expect(registered.clientSecret).toEqual(expect.any(String));
    const tokens = await connect(
      client,
      oauth.as,
      client.begin({ discovered: oauth.discovered, client: registered, redirectUri: REDIRECT_URI }),
    );
    expect(claimsOf(tokens.accessToken)).toMatchObject({ client_id: registered.clientId });
  });

  it('uses dynamic registration when the server does not take metadata documents', async () => {
    const noCimd: AuthorizationServerMetadata = { ...oauth.discovered.authorizationServer, clientIdMetadataDocumentSupported: false };
    const registered = await registration({ authorizationServer: noCimd, metadataDocumentUrl: documentUrl });
    expect(registered.source).toBe('dynamic');
  });

  it('relays a refused registration without the request', async () => {
    const error = await failureOf(registration({ redirectUri: 'not a url' }));
    expect(error).toBeInstanceOf(UpstreamAuthorizationError);
    expect(error.code).toBe('registration_failed');
    expect(error.oauthError).toBe('invalid_redirect_uri');
  });

  it('says so when the server offers no way to register and the record names no client', async () => {
    const { registrationEndpoint: _, ...closed } = oauth.discovered.authorizationServer;
    const error = await failureOf(registration({ authorizationServer: { ...closed, clientIdMetadataDocumentSupported: false } }));
    expect(error.code).toBe('unsupported');
  });
});
