import jwt, { JwtHeader, JwtPayload, SigningKeyCallback } from 'jsonwebtoken';
import { Actor } from '../../domain/actor';
import { isUuid } from '../../domain/uuid';
import { AccessTokenRefusedError } from './access-token-refused.error';
import { AccessTokenVerifier } from './access-token-verifier';
import { JwksKeySet } from './jwks-key-set';
import { ACCEPTED_ALGORITHMS, refusalOf, refuseUnacceptableHeader } from './jwt-refusals';

/** What a token must name besides a good signature and an `exp`; null: anything. */
export interface ExpectedClaims {
  issuer: string | [string, ...string[]] | null;
  /** Several: any one of them among the token's audiences. */
  audience: string | [string, ...string[]] | null;
}

export interface JwksVerifierOptions {
  issuer: string | null;
  audience: string | null;
  adminRole: string;
  /** JWT_MAX_LIFETIME_SECONDS: the longest a token may be valid for, from its `iat` (or from now). */
  maxLifetimeSeconds: number;
}

/**
 * Verifies JWTs against the keys an identity provider publishes as a JWKS.
 * Refusals are AccessTokenRefusedErrors: general terms for the caller, the
 * particulars for the log.
 */
export class JwksAccessTokenVerifier implements AccessTokenVerifier {
  constructor(
    private readonly options: JwksVerifierOptions,
    private readonly keys: Pick<JwksKeySet, 'keyFor'>,
  ) {}

  async verify(token: string): Promise<Actor> {
    const payload = await this.verifyClaims(token, this.options);
    const roles = Array.isArray(payload.roles) ? payload.roles : [];
    return { userId: payload.sub.toLowerCase(), isAdmin: roles.includes(this.options.adminRole) };
  }

  /**
   * The payload of a token signed by a key of the JWKS (one cache for every
   * caller), with an `exp` at most maxLifetimeSeconds after its `iat`, a
   * UUID `sub`, and the expected issuer and audience.
   */
  async verifyClaims(token: string, expected: ExpectedClaims): Promise<JwtPayload & { sub: string; exp: number }> {
    refuseUnacceptableHeader(token);
    const payload = await new Promise<JwtPayload>((resolve, reject) => {
      jwt.verify(
        token,
        (header: JwtHeader, callback: SigningKeyCallback) => this.signingKey(header, callback),
        {
          algorithms: ACCEPTED_ALGORITHMS,
          issuer: expected.issuer ?? undefined,
          audience: expected.audience ?? undefined,
        },
        (error, decoded) => {
          if (error || !decoded || typeof decoded === 'string') reject(refusalOf(error));
          else resolve(decoded);
        },
      );
    });
    // jsonwebtoken checks exp only when present; a token without one would be good forever.
    if (payload.exp === undefined) throw new AccessTokenRefusedError('token has no expiry', 'no exp claim');
    this.refuseLongLived(payload.exp, payload.iat);
    if (!isUuid(payload.sub)) throw new AccessTokenRefusedError('token subject must be a UUID', 'sub is not a UUID');
    return payload as JwtPayload & { sub: string; exp: number };
  }

  /**
   * An `exp` of 1e300 is a token good forever, whoever it leaks to. The
   * lifetime counts from `iat`, or from now when `iat` is absent, not a
   * number, or in the future (else a future `iat` would stretch it).
   */
  private refuseLongLived(exp: number, iat: unknown): void {
    const now = Math.floor(Date.now() / 1000);
    const from = typeof iat === 'number' ? Math.min(iat, now) : now;
    const lifetime = exp - from;
    if (lifetime > this.options.maxLifetimeSeconds) {
      throw new AccessTokenRefusedError(
        'token lifetime too long',
        `valid for ${lifetime} seconds, more than ${this.options.maxLifetimeSeconds}`,
      );
    }
  }

  private signingKey(header: JwtHeader, callback: SigningKeyCallback): void {
    // The kid is the caller's text: it stays out of the error, which is logged.
    this.keys.keyFor(header.kid).then(
      (key) => (key ? callback(null, key.publicKey) : callback(new Error("no key of the JWKS has the token's kid"))),
      (error: Error) => callback(error),
    );
  }
}
