import { isPkceValue } from '../../auth/pkce';

/** What the development provider keeps between the click and the token request. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string;
  codeChallenge: string;
  nonce: string | null;
}

const OPAQUE = /^[\x20-\x7e]{1,512}$/;

/**
 * The authorization request's parameters (OIDC Core 3.1.2.1), query or form alike.
 * Only the console's own client and redirect URI are served, and only the code flow with S256 PKCE.
 */
export function parseAuthorizationRequest(
  params: Record<string, unknown>,
  expected: { clientId: string; redirectUri: string },
): AuthorizationRequest | string {
  if (params.response_type !== 'code') return 'response_type must be code';
  if (params.client_id !== expected.clientId) return 'unknown client_id';
  if (params.redirect_uri !== expected.redirectUri) return 'redirect_uri is not registered';
  if (params.code_challenge_method !== 'S256') return 'code_challenge_method must be S256';
  if (!isPkceValue(params.code_challenge)) return 'code_challenge must be 43 to 128 unreserved characters';
  if (typeof params.state !== 'string' || !OPAQUE.test(params.state)) return 'state must be 1 to 512 printable characters';
  const nonce = params.nonce ?? null;
  if (nonce !== null && (typeof nonce !== 'string' || !OPAQUE.test(nonce))) return 'nonce must be 1 to 512 printable characters';
  return {
    clientId: expected.clientId,
    redirectUri: expected.redirectUri,
    state: params.state,
    codeChallenge: params.code_challenge,
    nonce,
  };
}
