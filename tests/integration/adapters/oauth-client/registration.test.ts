import { clientMetadataDocument } from '../../../../src/adapters/oauth-client/client-metadata-document';
import {
  AuthorizationServerMetadata,
  DiscoveredAuthorization,
  UpstreamAuthorizationError,
} from '../../../../src/application/ports/upstream-authorization.port';
import { serveJsonOverHttps, testCa } from '../../../support/local-ca';
import { OAuthAuthorizationServer } from '../../../support/oauth-authorization-server';
import {
  claimsOf,
  connect,
  GIVEN_CLIENT,
  oauthClient,
  REDIRECT_URI,
  startAuthorizationServer,
  startProtectedResource,
} from '../../../support/oauth-client-fixture';
import { ProtectedResource } from '../../../support/protected-resource';

let as: OAuthAuthorizationServer;
let resource: ProtectedResource;
let discovered: DiscoveredAuthorization;
let cimd: Awaited<ReturnType<typeof serveJsonOverHttps>>;
let documentUrl: string;
const client = oauthClient();

beforeAll(async () => {
  const ca = await testCa();
  // keygate's Client ID Metadata Document, served over https as the draft requires; the route that serves it comes later.
  cimd = await serveJsonOverHttps(ca, { '/oauth/client': () => clientMetadataDocument(documentUrl, [REDIRECT_URI], 'keygate') });
  documentUrl = `${cimd.origin}/oauth/client`;
  as = await startAuthorizationServer(ca.caCert);
  resource = await startProtectedResource(as);
  discovered = await client.discover(`${resource.origin}/mcp`);
});
afterAll(async () => {
  await resource.stop();
  await as.stop();
  await cimd.close();
});

const registration = (overrides: Partial<Parameters<typeof client.register>[0]> = {}) =>
  client.register({ authorizationServer: discovered.authorizationServer, redirectUri: REDIRECT_URI, clientName: 'keygate', ...overrides });

describe('register', () => {
  it('uses the server record client first, even where the others are offered', async () => {
    expect(discovered.authorizationServer.clientIdMetadataDocumentSupported).toBe(true);
    const client1 = await registration({ given: GIVEN_CLIENT, metadataDocumentUrl: documentUrl });
    expect(client1).toEqual({
      issuer: as.issuer,
      clientId: GIVEN_CLIENT.clientId,
      clientSecret: GIVEN_CLIENT.clientSecret,
      tokenEndpointAuth: 'client_secret_basic',
      source: 'given',
    });
    expect(cimd.hits.size).toBe(0);
  });

  it('then the Client ID Metadata Document, which the server fetches when the user authorizes', async () => {
    const registered = await registration({ metadataDocumentUrl: documentUrl });
    expect(registered).toEqual({ issuer: as.issuer, clientId: documentUrl, tokenEndpointAuth: 'none', source: 'metadata_document' });
    const tokens = await connect(client, as, client.begin({ discovered, client: registered, redirectUri: REDIRECT_URI }));
    expect(cimd.hits.get('/oauth/client')).toBeGreaterThan(0);
    expect(claimsOf(tokens.accessToken)).toMatchObject({ client_id: documentUrl, aud: `${resource.origin}/mcp` });
  });

  it('then dynamic registration (RFC 7591), whose client then works', async () => {
    const registered = await registration();
    expect(registered).toMatchObject({ issuer: as.issuer, tokenEndpointAuth: 'client_secret_basic', source: 'dynamic' });
    expect(registered.clientSecret).toEqual(expect.any(String));
    const tokens = await connect(client, as, client.begin({ discovered, client: registered, redirectUri: REDIRECT_URI }));
    expect(claimsOf(tokens.accessToken)).toMatchObject({ client_id: registered.clientId });
  });

  it('uses dynamic registration when the server does not take metadata documents', async () => {
    const noCimd: AuthorizationServerMetadata = { ...discovered.authorizationServer, clientIdMetadataDocumentSupported: false };
    const registered = await registration({ authorizationServer: noCimd, metadataDocumentUrl: documentUrl });
    expect(registered.source).toBe('dynamic');
  });

  it('relays a refused registration without the request', async () => {
    const error = await registration({ redirectUri: 'not a url' }).then(
      () => null,
      (e: unknown) => e as UpstreamAuthorizationError,
    );
    expect(error).toBeInstanceOf(UpstreamAuthorizationError);
    expect(error!.code).toBe('registration_failed');
    expect(error!.oauthError).toBe('invalid_redirect_uri');
  });

  it('says so when the server offers no way to register and the record names no client', async () => {
    const { registrationEndpoint: _, ...closed } = discovered.authorizationServer;
    const error = await registration({ authorizationServer: { ...closed, clientIdMetadataDocumentSupported: false } }).then(
      () => null,
      (e: unknown) => e as UpstreamAuthorizationError,
    );
    expect(error!.code).toBe('unsupported');
  });
});
