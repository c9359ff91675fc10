import {
  AuthorizationCallback,
  BeginInput,
  ClientRegistration,
  DiscoveredAuthorization,
  ExchangeInput,
  PendingAuthorization,
  RefreshInput,
  RegisterInput,
  RevocationOutcome,
  RevokeInput,
  UpstreamAuthorization,
  UpstreamAuthorizationError,
  UpstreamTokenSet,
} from '../../application/ports/upstream-authorization.port';
import { AuthorizationDiscovery } from './authorization-discovery';
import { authorizationUrl, callbackCode } from './authorization-request';
import { ClientRegistrar } from './client-registrar';
import { OAuthHttp } from './oauth-http';
import { pkcePair, randomState } from './pkce';
import { authenticate, oauthFailure, requestTokens } from './token-endpoint';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export interface OAuthUpstreamAuthorizationOptions {
  http: OAuthHttp;
  /** In production the authorization endpoint a user is sent to must be https too. */
  production: boolean;
  now?: () => Date;
}

/** UpstreamAuthorization over HTTP: every request through one OAuthHttp (guarded, pinned, bounded). */
export class OAuthUpstreamAuthorization implements UpstreamAuthorization {
  private readonly http: OAuthHttp;
  private readonly discovery: AuthorizationDiscovery;
  private readonly registrar: ClientRegistrar;
  private readonly now: () => Date;

  constructor(private readonly options: OAuthUpstreamAuthorizationOptions) {
    this.http = options.http;
    this.discovery = new AuthorizationDiscovery(options.http);
    this.registrar = new ClientRegistrar(options.http);
    this.now = options.now ?? (() => new Date());
  }

  async discover(mcpUrl: string, wwwAuthenticate?: string): Promise<DiscoveredAuthorization> {
    // The metadata a 401 names may be https while the MCP URL is not: the token would still travel in clear.
    if (this.options.production && !(URL.canParse(mcpUrl) && new URL(mcpUrl).protocol === 'https:')) {
      throw new UpstreamAuthorizationError('insecure_url', 'the MCP server URL is not an https URL');
    }
    return this.discovery.discover(mcpUrl, wwwAuthenticate);
  }

  register(input: RegisterInput): Promise<ClientRegistration> {
    return this.registrar.register(input);
  }

  begin(input: BeginInput): PendingAuthorization {
    const { discovered, client, redirectUri } = input;
    const as = discovered.authorizationServer;
    if (this.options.production && new URL(as.authorizationEndpoint).protocol !== 'https:') {
      throw new UpstreamAuthorizationError('insecure_url', 'the authorization endpoint is not an https URL');
    }
    const scopes = input.scopes ?? discovered.scopes;
    const pkce = pkcePair();
    const state = randomState();
    const url = authorizationUrl({
      authorizationEndpoint: as.authorizationEndpoint,
      clientId: client.clientId,
      redirectUri,
      state,
      codeChallenge: pkce.challenge,
      resource: discovered.resource,
      scopes,
    });
    return {
      authorizationUrl: url,
      state,
      codeVerifier: pkce.verifier,
      redirectUri,
      resource: discovered.resource,
      scopes,
      client,
      authorizationServer: as,
    };
  }

  async complete(pending: PendingAuthorization, callback: AuthorizationCallback): Promise<UpstreamTokenSet> {
    const code = callbackCode(pending, callback);
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: pending.redirectUri,
      code_verifier: pending.codeVerifier,
      resource: pending.resource,
    });
    return requestTokens(this.http, pending.authorizationServer.tokenEndpoint, pending.client, form, pending.scopes, this.now());
  }

  async refresh(input: RefreshInput): Promise<UpstreamTokenSet> {
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: input.refreshToken, resource: input.resource });
    if (input.scopes && input.scopes.length > 0) form.set('scope', input.scopes.join(' '));
    const set = await requestTokens(this.http, input.authorizationServer.tokenEndpoint, input.client, form, input.scopes ?? [], this.now());
    // A server that does not rotate leaves the old refresh token valid.
    return set.refreshToken !== undefined ? set : { ...set, refreshToken: input.refreshToken };
  }

  async revoke(input: RevokeInput): Promise<RevocationOutcome> {
    const endpoint = input.authorizationServer.revocationEndpoint;
    if (endpoint === undefined) return { revoked: false };
    const form = new URLSearchParams({ token: input.token, token_type_hint: input.tokenTypeHint });
    const answer = await this.http.postForm(endpoint, 'the revocation endpoint', form, authenticate(input.client, form));
    if (answer.status !== 200) throw oauthFailure('revocation_failed', 'the revocation endpoint refused the revocation', answer);
    return { revoked: true };
  }

  async exchange(input: ExchangeInput): Promise<UpstreamTokenSet> {
    const form = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      subject_token: input.subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      requested_token_type: ACCESS_TOKEN_TYPE,
      audience: input.audience,
    });
    if (input.resource !== undefined) form.set('resource', input.resource);
    if (input.scopes && input.scopes.length > 0) form.set('scope', input.scopes.join(' '));
    const client = {
      ...input.client,
      tokenEndpointAuth: input.client.clientSecret !== undefined ? ('client_secret_basic' as const) : ('none' as const),
    };
    return requestTokens(this.http, input.tokenEndpoint, client, form, input.scopes ?? [], this.now());
  }
}
