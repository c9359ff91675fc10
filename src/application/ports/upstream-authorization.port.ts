/**
 * keygate as an OAuth 2.1 client of an upstream MCP server's authorization
 * server (issue 27, `auth.type` "oauth" and "token_exchange"). Everything here
 * is plain data a connection store can keep; values marked secret (tokens,
 * the PKCE verifier, a client secret) are never logged, audited or put into
 * an error text, by the adapter or by whoever holds them.
 */

/** RFC 9728 protected-resource metadata: the members keygate acts on. */
export interface ProtectedResourceMetadata {
  /** The resource identifier, canonical (resource-uri rules): what `resource` and `aud` name. */
  resource: string;
  authorizationServers: string[];
  scopesSupported?: string[];
}

/** RFC 8414 (or OpenID Connect discovery) authorization-server metadata: the members keygate acts on. */
export interface AuthorizationServerMetadata {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  registrationEndpoint?: string;
  revocationEndpoint?: string;
  scopesSupported?: string[];
  tokenEndpointAuthMethodsSupported?: string[];
  clientIdMetadataDocumentSupported: boolean;
  /** RFC 9207: the authorization response must carry `iss`. */
  issParameterSupported: boolean;
}

/** What discover() found for one upstream MCP URL. */
export interface DiscoveredAuthorization {
  /** The RFC 8707 resource indicator to ask tokens for (the metadata's canonical `resource`). */
  resource: string;
  protectedResource: ProtectedResourceMetadata;
  authorizationServer: AuthorizationServerMetadata;
  /** Scopes to ask for when the server record names none: the 401's `scope`, else `scopes_supported`. */
  scopes: string[];
}

/** How a client authenticates at the token endpoint. */
export type TokenEndpointAuth = 'client_secret_basic' | 'client_secret_post' | 'none';

/** The client keygate is at one authorization server. */
export interface ClientRegistration {
  /** Client ids are per authorization server: this is the issuer that knows this one. */
  issuer: string;
  clientId: string;
  /** Secret. */
  clientSecret?: string;
  tokenEndpointAuth: TokenEndpointAuth;
  /** given: from the server record; metadata_document: a Client ID Metadata Document URL; dynamic: RFC 7591. */
  source: 'given' | 'metadata_document' | 'dynamic';
}

export interface RegisterInput {
  authorizationServer: AuthorizationServerMetadata;
  /** The server record's client, used as is when present. */
  given?: { clientId: string; clientSecret?: string };
  /** The https URL where keygate serves its Client ID Metadata Document, when it serves one. */
  metadataDocumentUrl?: string;
  redirectUri: string;
  clientName: string;
}

/** One authorization started by begin(), kept until its callback arrives (on any replica). */
export interface PendingAuthorization {
  authorizationUrl: string;
  state: string;
  /** Secret. */
  codeVerifier: string;
  redirectUri: string;
  resource: string;
  scopes: string[];
  client: ClientRegistration;
  authorizationServer: AuthorizationServerMetadata;
}

export interface BeginInput {
  discovered: DiscoveredAuthorization;
  client: ClientRegistration;
  redirectUri: string;
  /** Scopes to ask for; the discovered ones when absent. */
  scopes?: string[];
}

/** The query of the redirect back to keygate. */
export interface AuthorizationCallback {
  code?: string;
  state?: string;
  iss?: string;
  error?: string;
  errorDescription?: string;
}

/** Tokens for one user at one upstream. All of it is secret but the dates and scopes. */
export interface UpstreamTokenSet {
  accessToken: string;
  refreshToken?: string;
  /** When the access token stops working, when the server said (`expires_in`). */
  expiresAt?: Date;
  /** Granted scopes: the answer's `scope`, else those asked for. */
  scopes: string[];
  tokenType: string;
  /**
   * Who the user is at the upstream, for display only: a name, email or subject the answer states (an ID token's
   * or a JWT access token's claims, unverified). Not a secret; never used to decide anything.
   */
  account?: string;
}

export interface RefreshInput {
  authorizationServer: AuthorizationServerMetadata;
  client: ClientRegistration;
  refreshToken: string;
  resource: string;
  scopes?: string[];
}

export interface RevokeInput {
  authorizationServer: AuthorizationServerMetadata;
  client: ClientRegistration;
  token: string;
  tokenTypeHint: 'refresh_token' | 'access_token';
}

/** revoked: false says the server offers no RFC 7009 endpoint, so the token was only forgotten. */
export interface RevocationOutcome {
  revoked: boolean;
}

/** RFC 8693, for `auth.type` "token_exchange": the server record names the endpoint and client. */
export interface ExchangeInput {
  tokenEndpoint: string;
  client: { clientId: string; clientSecret?: string };
  /** The caller's own access token (secret). */
  subjectToken: string;
  audience: string;
  resource?: string;
  scopes?: string[];
}

export type UpstreamAuthorizationFailure =
  /** No usable metadata: none found, malformed, or naming another resource or issuer. */
  | 'discovery_failed'
  /** The authorization server cannot be used as MCP requires (no PKCE S256, no way to register). */
  | 'unsupported'
  | 'registration_failed'
  /** The callback does not belong to the pending authorization (state, issuer), or carries no code. */
  | 'callback_mismatch'
  /** The user or the server refused the authorization (`error` on the callback). */
  | 'authorization_denied'
  /** The token endpoint refused a grant (code, refresh token, exchange). */
  | 'grant_refused'
  | 'revocation_failed'
  /** A URL keygate would call is not https in production, or redirects from https to http. */
  | 'insecure_url'
  /** The server did not answer in time, answered too much, or could not be reached. */
  | 'unreachable';

/**
 * Why an authorization step failed: a stable `code`, a short message safe for
 * the caller, and the server's own `error` / `error_description` when it gave
 * them (bounded). Never a token, code, verifier or secret.
 */
export class UpstreamAuthorizationError extends Error {
  constructor(
    readonly code: UpstreamAuthorizationFailure,
    message: string,
    readonly oauthError?: string,
    readonly oauthDescription?: string,
  ) {
    super(message);
    this.name = 'UpstreamAuthorizationError';
  }
}

export interface UpstreamAuthorization {
  /**
   * RFC 9728 then RFC 8414 for `mcpUrl`: the 401's `resource_metadata` when
   * `wwwAuthenticate` names one, else the well-known URLs. Throws
   * UpstreamAuthorizationError, or UpstreamRefusal for a refused address.
   */
  discover(mcpUrl: string, wwwAuthenticate?: string): Promise<DiscoveredAuthorization>;
  /** The given client, else a Client ID Metadata Document URL the server accepts, else RFC 7591. */
  register(input: RegisterInput): Promise<ClientRegistration>;
  /** A fresh state and PKCE S256 pair, and the authorization URL carrying them with `resource` and scopes. */
  begin(input: BeginInput): PendingAuthorization;
  /** Checks the callback against `pending`, then exchanges the code with the verifier and resource. */
  complete(pending: PendingAuthorization, callback: AuthorizationCallback): Promise<UpstreamTokenSet>;
  /** A refresh_token grant; the set holds the rotated refresh token when the server rotated it. */
  refresh(input: RefreshInput): Promise<UpstreamTokenSet>;
  /** RFC 7009 when the server has a revocation endpoint, else nothing (revoked: false). */
  revoke(input: RevokeInput): Promise<RevocationOutcome>;
  /** RFC 8693: the caller's access token for one for `audience`. */
  exchange(input: ExchangeInput): Promise<UpstreamTokenSet>;
}
