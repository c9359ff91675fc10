import {
  AuthorizationServerMetadata,
  ProtectedResourceMetadata,
  UpstreamAuthorizationError,
} from '../../application/ports/upstream-authorization.port';
import { canonicalResource } from './resource-uri';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (doc: Json, name: string): string | undefined => (typeof doc[name] === 'string' ? doc[name] : undefined);
/** The strings of an array member; what else it holds is ignored, as both documents are extensible. */
const texts = (doc: Json, name: string): string[] | undefined =>
  Array.isArray(doc[name]) ? doc[name].filter((v): v is string => typeof v === 'string') : undefined;

function invalid(what: string, why: string): UpstreamAuthorizationError {
  return new UpstreamAuthorizationError('discovery_failed', `${what} ${why}`);
}

/** RFC 9728 §2: `resource` is required, and MCP requires at least one authorization server. */
export function protectedResourceMetadata(body: unknown): ProtectedResourceMetadata {
  const what = 'the protected resource metadata';
  if (!isObject(body)) throw invalid(what, 'is not a JSON object');
  const resource = canonicalResource(text(body, 'resource') ?? '');
  if (resource === null) throw invalid(what, 'has no usable resource');
  const authorizationServers = (texts(body, 'authorization_servers') ?? []).filter((s) => URL.canParse(s));
  if (authorizationServers.length === 0) throw invalid(what, 'names no authorization server');
  const scopesSupported = texts(body, 'scopes_supported');
  return { resource, authorizationServers, ...(scopesSupported ? { scopesSupported } : {}) };
}

/**
 * RFC 8414 §3.3 (and OpenID Connect Discovery §4.3): the document's issuer is
 * the one it was looked up for, or it is not used. PKCE S256 must be listed:
 * the MCP spec has a client refuse a server whose metadata does not say so.
 */
export function authorizationServerMetadata(body: unknown, expectedIssuer: string): AuthorizationServerMetadata {
  const what = 'the authorization server metadata';
  if (!isObject(body)) throw invalid(what, 'is not a JSON object');
  const issuer = text(body, 'issuer');
  if (issuer === undefined || !sameIssuer(issuer, expectedIssuer)) throw invalid(what, 'names another issuer');
  const authorizationEndpoint = text(body, 'authorization_endpoint');
  const tokenEndpoint = text(body, 'token_endpoint');
  if (!authorizationEndpoint || !tokenEndpoint || !URL.canParse(authorizationEndpoint) || !URL.canParse(tokenEndpoint)) {
    throw invalid(what, 'lacks an authorization or token endpoint');
  }
  if (!(texts(body, 'code_challenge_methods_supported') ?? []).includes('S256')) {
    throw new UpstreamAuthorizationError('unsupported', 'the authorization server does not offer PKCE S256');
  }
  const optional = (name: string) => {
    const value = text(body, name);
    return value !== undefined && URL.canParse(value) ? value : undefined;
  };
  const metadata: AuthorizationServerMetadata = {
    issuer,
    authorizationEndpoint,
    tokenEndpoint,
    clientIdMetadataDocumentSupported: body.client_id_metadata_document_supported === true,
    issParameterSupported: body.authorization_response_iss_parameter_supported === true,
  };
  const registrationEndpoint = optional('registration_endpoint');
  const revocationEndpoint = optional('revocation_endpoint');
  const scopesSupported = texts(body, 'scopes_supported');
  const authMethods = texts(body, 'token_endpoint_auth_methods_supported');
  if (registrationEndpoint) metadata.registrationEndpoint = registrationEndpoint;
  if (revocationEndpoint) metadata.revocationEndpoint = revocationEndpoint;
  if (scopesSupported) metadata.scopesSupported = scopesSupported;
  if (authMethods) metadata.tokenEndpointAuthMethodsSupported = authMethods;
  return metadata;
}

/** Issuers compare as strings; only a trailing slash on a path-less issuer is forgiven, as URL parsing adds one. */
function sameIssuer(a: string, b: string): boolean {
  const strip = (s: string) => (URL.canParse(s) && new URL(s).pathname === '/' ? s.replace(/\/$/, '') : s);
  return strip(a) === strip(b);
}
