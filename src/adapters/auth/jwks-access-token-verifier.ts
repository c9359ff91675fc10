import jwt, { JwtHeader, JwtPayload, SigningKeyCallback } from 'jsonwebtoken';
import { JwksClient } from 'jwks-rsa';
import { Actor } from '../../domain/actor';
import { isUuid } from '../../domain/uuid';
import { AccessTokenRefusedError } from './access-token-refused.error';
import { AccessTokenVerifier } from './access-token-verifier';
import { ACCEPTED_ALGORITHMS, refusalOf, refuseUnacceptableHeader } from './jwt-refusals';

/** What a token must name besides a good signature and an `exp`; null: anything. */
export interface ExpectedClaims {
  issuer: string | [string, ...string[]] | null;
  audience: string | null;
}

export interface JwksVerifierOptions {
  jwksUri: string;
  issuer: string | null;
  audience: string | null;
  adminRole: string;
}

/**
 * Verifies JWTs against the keys an identity provider publishes as a JWKS.
 * Refusals are AccessTokenRefusedErrors: general terms for the caller, the
 * particulars for the log.
 */
export class JwksAccessTokenVerifier implements AccessTokenVerifier {
  private readonly client: JwksClient;

  constructor(private readonly options: JwksVerifierOptions) {
    this.client = new JwksClient({
      jwksUri: options.jwksUri,
      cache: true,
      cacheMaxEntries: 10,
      cacheMaxAge: 10 * 60_000,
      // An unknown kid triggers a refetch; the limit keeps forged kids from hammering the provider.
      rateLimit: true,
      jwksRequestsPerMinute: 10,
      timeout: 5_000,
    });
  }

  async verify(token: string): Promise<Actor> {
    const payload = await this.verifyClaims(token, this.options);
    const roles = Array.isArray(payload.roles) ? payload.roles : [];
    return { userId: (payload.sub as string).toLowerCase(), isAdmin: roles.includes(this.options.adminRole) };
  }

  /**
   * The payload of a token signed by a key of the JWKS (one cache for every
   * caller), with an `exp`, a UUID `sub`, and the expected issuer and audience.
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
    if (!isUuid(payload.sub)) throw new AccessTokenRefusedError('token subject must be a UUID', 'sub is not a UUID');
    return payload as JwtPayload & { sub: string; exp: number };
  }

  private signingKey(header: JwtHeader, callback: SigningKeyCallback): void {
    this.client.getSigningKey(header.kid).then(
      (key) => callback(null, key.getPublicKey()),
      (error: Error) => callback(error),
    );
  }
}
