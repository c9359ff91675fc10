import jwt, { JsonWebTokenError, NotBeforeError, TokenExpiredError } from 'jsonwebtoken';
import { AccessTokenRefusedError } from './access-token-refused.error';

/** Asymmetric algorithms only: `none` and the HS* family can never be accepted. */
export const ACCEPTED_ALGORITHMS: jwt.Algorithm[] = ['RS256', 'ES256'];

/** Attacker-chosen header values are logged, but not at any length. */
const MAX_LOGGED = 200;

/**
 * Checks the header before any key is fetched. jsonwebtoken ignores `crit`,
 * but RFC 7515 section 4.1.11 says a token naming extensions the recipient
 * does not understand must be refused; keygate understands none, so any
 * `crit` is refused (an empty or non-array one is malformed, refused too).
 */
export function refuseUnacceptableHeader(token: string): void {
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded) throw new AccessTokenRefusedError('token malformed', 'not a JWS compact serialization', 'debug');
  const header = decoded.header as unknown as Record<string, unknown>;
  if ('crit' in header) {
    const crit = header.crit;
    const named = Array.isArray(crit) && crit.length > 0 ? `crit ${JSON.stringify(crit)}` : 'malformed crit header';
    throw new AccessTokenRefusedError('token uses unsupported critical extensions', named.slice(0, MAX_LOGGED));
  }
  if (!ACCEPTED_ALGORITHMS.includes(header.alg as jwt.Algorithm)) {
    throw new AccessTokenRefusedError('token algorithm not accepted', `alg ${String(header.alg).slice(0, MAX_LOGGED)}`);
  }
}

/** jsonwebtoken's failure in general terms; its own message, which names the expected iss and aud, goes to the log. */
export function refusalOf(error: JsonWebTokenError | null): AccessTokenRefusedError {
  if (error instanceof TokenExpiredError)
    return new AccessTokenRefusedError('token expired', `expired at ${error.expiredAt.toISOString()}`, 'debug');
  if (error instanceof NotBeforeError)
    return new AccessTokenRefusedError('token not yet valid', `not before ${error.date.toISOString()}`, 'debug');
  const detail = error?.message ?? 'no payload';
  if (detail.startsWith('jwt issuer invalid')) return new AccessTokenRefusedError('token issuer not accepted', detail);
  if (detail.startsWith('jwt audience invalid')) return new AccessTokenRefusedError('token audience not accepted', detail);
  if (detail.startsWith('error in secret or public key callback'))
    return new AccessTokenRefusedError('token signing key not found', detail);
  if (detail === 'invalid signature') return new AccessTokenRefusedError('token signature invalid', detail);
  if (detail === 'invalid algorithm' || detail === 'jwt signature is required')
    return new AccessTokenRefusedError('token algorithm not accepted', detail);
  if (detail === 'jwt malformed' || detail === 'invalid token') return new AccessTokenRefusedError('token malformed', detail, 'debug');
  return new AccessTokenRefusedError('token invalid', detail);
}
