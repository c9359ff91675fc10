import jwt, { JwtHeader, JwtPayload, SigningKeyCallback } from 'jsonwebtoken';
import { JwksClient } from 'jwks-rsa';
import { Actor } from '../../domain/actor';
import { InvalidAccessTokenError } from '../../domain/errors';
import { isUuid } from '../../domain/uuid';
import { AccessTokenVerifier } from './access-token-verifier';

export interface JwksVerifierOptions {
  jwksUri: string;
  issuer: string | null;
  audience: string | null;
  adminRole: string;
}

/** Asymmetric algorithms only: `none` and the HS* family can never be accepted. */
export const ACCEPTED_ALGORITHMS: jwt.Algorithm[] = ['RS256', 'ES256'];

/** Verifies JWTs against the keys an identity provider publishes as a JWKS. */
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
    const payload = await new Promise<JwtPayload>((resolve, reject) => {
      jwt.verify(
        token,
        (header: JwtHeader, callback: SigningKeyCallback) => this.signingKey(header, callback),
        {
          algorithms: ACCEPTED_ALGORITHMS,
          issuer: this.options.issuer ?? undefined,
          audience: this.options.audience ?? undefined,
        },
        (error, decoded) => {
          if (error || !decoded || typeof decoded === 'string') {
            reject(new InvalidAccessTokenError(`Invalid access token: ${error?.message ?? 'no payload'}`));
          } else {
            resolve(decoded);
          }
        },
      );
    });
    if (!isUuid(payload.sub)) throw new InvalidAccessTokenError('Invalid access token: sub must be a UUID');
    const roles = Array.isArray(payload.roles) ? payload.roles : [];
    return { userId: payload.sub.toLowerCase(), isAdmin: roles.includes(this.options.adminRole) };
  }

  private signingKey(header: JwtHeader, callback: SigningKeyCallback): void {
    this.client.getSigningKey(header.kid).then(
      (key) => callback(null, key.getPublicKey()),
      (error: Error) => callback(error),
    );
  }
}
