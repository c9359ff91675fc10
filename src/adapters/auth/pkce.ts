import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 section 4.1: 43 to 128 unreserved characters, for the verifier and an S256 challenge alike. */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

export function isPkceValue(value: unknown): value is string {
  return typeof value === 'string' && PKCE_VALUE.test(value);
}

/** RFC 7636 section 4.6: BASE64URL(SHA256(verifier)) equals the challenge sent with the authorization request. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!isPkceValue(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
