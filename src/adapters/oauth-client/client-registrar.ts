import {
  AuthorizationServerMetadata,
  ClientRegistration,
  RegisterInput,
  TokenEndpointAuth,
  UpstreamAuthorizationError,
} from '../../application/ports/upstream-authorization.port';
import { OAuthHttp } from './oauth-http';
import { oauthFailure } from './token-endpoint';

/**
 * Which client keygate is at an authorization server, in the order of issue
 * 27 and the MCP spec: the server record's client; else a Client ID Metadata
 * Document URL when the server says `client_id_metadata_document_supported`
 * (and keygate has one to offer); else RFC 7591 dynamic registration.
 */
export class ClientRegistrar {
  constructor(private readonly http: OAuthHttp) {}

  async register(input: RegisterInput): Promise<ClientRegistration> {
    const { authorizationServer: as, given } = input;
    if (given) {
      const auth = given.clientSecret !== undefined ? secretAuth(as) : 'none';
      return { issuer: as.issuer, clientId: given.clientId, ...secret(given.clientSecret), tokenEndpointAuth: auth, source: 'given' };
    }
    if (as.clientIdMetadataDocumentSupported && input.metadataDocumentUrl) {
      return { issuer: as.issuer, clientId: input.metadataDocumentUrl, tokenEndpointAuth: 'none', source: 'metadata_document' };
    }
    if (as.registrationEndpoint) return this.dynamic(as, as.registrationEndpoint, input);
    throw new UpstreamAuthorizationError(
      'unsupported',
      'the authorization server offers no way to register a client, and the server record names none',
    );
  }

  private async dynamic(as: AuthorizationServerMetadata, endpoint: string, input: RegisterInput): Promise<ClientRegistration> {
    const asked = secretAuth(as);
    const answer = await this.http.postJson(endpoint, 'the registration endpoint', {
      client_name: input.clientName,
      redirect_uris: [input.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: asked,
    });
    const body = answer.body as Record<string, unknown> | undefined;
    if ((answer.status !== 201 && answer.status !== 200) || typeof body?.client_id !== 'string' || body.client_id === '') {
      throw oauthFailure('registration_failed', 'the registration endpoint refused the client', answer);
    }
    const clientSecret = typeof body.client_secret === 'string' ? body.client_secret : undefined;
    const method = body.token_endpoint_auth_method;
    const auth: TokenEndpointAuth =
      clientSecret === undefined ? 'none' : method === 'client_secret_post' ? 'client_secret_post' : 'client_secret_basic';
    return { issuer: as.issuer, clientId: body.client_id, ...secret(clientSecret), tokenEndpointAuth: auth, source: 'dynamic' };
  }
}

/** RFC 8414: an absent list means client_secret_basic only. */
function secretAuth(as: AuthorizationServerMetadata): TokenEndpointAuth {
  const methods = as.tokenEndpointAuthMethodsSupported ?? ['client_secret_basic'];
  if (methods.includes('client_secret_basic')) return 'client_secret_basic';
  return methods.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
}

const secret = (clientSecret: string | undefined) => (clientSecret !== undefined ? { clientSecret } : {});
