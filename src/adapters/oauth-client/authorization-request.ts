import { timingSafeEqual } from 'node:crypto';
import { AuthorizationCallback, PendingAuthorization } from '../../application/ports/upstream-authorization.port';
import { oauthFailure } from './token-endpoint';

export interface AuthorizationRequest {
  authorizationEndpoint: string;
  clientId: string;
  redirectUri: string;
  state: string;
  codeChallenge: string;
  resource: string;
  scopes: string[];
}

/** The authorization code request of OAuth 2.1 with PKCE S256 and the RFC 8707 resource. */
export function authorizationUrl(request: AuthorizationRequest): string {
  const url = new URL(request.authorizationEndpoint);
  const params = url.searchParams;
  params.set('response_type', 'code');
  params.set('client_id', request.clientId);
  params.set('redirect_uri', request.redirectUri);
  params.set('state', request.state);
  params.set('code_challenge', request.codeChallenge);
  params.set('code_challenge_method', 'S256');
  params.set('resource', request.resource);
  if (request.scopes.length > 0) params.set('scope', request.scopes.join(' '));
  return url.href;
}

/**
 * The code of a callback that belongs to `pending`: its state, and its issuer
 * (RFC 9207, required when the server says it sends one), or the refusal it
 * carries. Throws UpstreamAuthorizationError otherwise.
 */
export function callbackCode(pending: PendingAuthorization, callback: AuthorizationCallback): string {
  const mismatch = (why: string) => oauthFailure('callback_mismatch', `the authorization callback ${why}`);
  if (callback.state === undefined || !sameText(callback.state, pending.state)) throw mismatch('does not match the pending authorization');
  const issuer = pending.authorizationServer.issuer;
  if (callback.iss !== undefined ? callback.iss !== issuer : pending.authorizationServer.issParameterSupported) {
    throw mismatch('comes from another issuer');
  }
  if (callback.error !== undefined) {
    throw oauthFailure('authorization_denied', 'the authorization was refused', undefined, {
      error: callback.error,
      description: callback.errorDescription,
    });
  }
  if (!callback.code) throw mismatch('carries no code');
  return callback.code;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
