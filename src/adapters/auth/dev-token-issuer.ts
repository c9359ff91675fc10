import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import jwt from 'jsonwebtoken';

export const DEV_ISSUER = 'keygate-dev';
export const DEV_JWKS_PATH = '/.well-known/jwks.json';

export interface MintOptions {
  sub: string;
  admin?: boolean;
  adminRole?: string;
  ttlSeconds?: number;
}

/** How long a development access token lives unless asked otherwise: a working day and more. */
const DEFAULT_TTL_SECONDS = 24 * 3600;

/**
 * The development identity provider: an ES256 key kept in the data directory,
 * whose public half the service publishes as a JWKS. Never used in production.
 * It mints nothing the service would refuse: no token outlives
 * JWT_MAX_LIFETIME_SECONDS (`maxLifetimeSeconds`).
 */
export class DevTokenIssuer {
  private constructor(
    private readonly privateKey: KeyObject,
    readonly kid: string,
    readonly maxLifetimeSeconds: number,
  ) {}

  /** The lifetime of a token minted without `ttlSeconds`. */
  get defaultTtlSeconds(): number {
    return Math.min(DEFAULT_TTL_SECONDS, this.maxLifetimeSeconds);
  }

  static loadOrCreate(dataDir: string, maxLifetimeSeconds = DEFAULT_TTL_SECONDS): DevTokenIssuer {
    const file = path.join(dataDir, 'dev-issuer-key.pem');
    if (!existsSync(file)) {
      mkdirSync(dataDir, { recursive: true });
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    }
    const privateKey = createPrivateKey(readFileSync(file));
    const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
    return new DevTokenIssuer(privateKey, createHash('sha256').update(spki).digest('base64url').slice(0, 16), maxLifetimeSeconds);
  }

  jwks(): { keys: object[] } {
    const jwk = createPublicKey(this.privateKey).export({ format: 'jwk' });
    return { keys: [{ ...jwk, kid: this.kid, alg: 'ES256', use: 'sig' }] };
  }

  /** An OpenID Connect ID token for the development sign-in: `aud` is the console's client id. */
  mintIdToken(options: { sub: string; issuer: string; audience: string; nonce: string | null; ttlSeconds: number }): string {
    return jwt.sign(options.nonce === null ? {} : { nonce: options.nonce }, this.privateKey, {
      algorithm: 'ES256',
      keyid: this.kid,
      issuer: options.issuer,
      audience: options.audience,
      subject: options.sub,
      expiresIn: options.ttlSeconds,
    });
  }

  /** Throws a RangeError for a `ttlSeconds` past `maxLifetimeSeconds`: the service would refuse the token. */
  mint(options: MintOptions): string {
    const ttlSeconds = options.ttlSeconds ?? this.defaultTtlSeconds;
    if (!(ttlSeconds > 0 && ttlSeconds <= this.maxLifetimeSeconds)) {
      throw new RangeError(`A token's lifetime must be between 1 and ${this.maxLifetimeSeconds} seconds (JWT_MAX_LIFETIME_SECONDS)`);
    }
    const roles = options.admin ? [options.adminRole ?? 'admin'] : [];
    return jwt.sign({ roles }, this.privateKey, {
      algorithm: 'ES256',
      keyid: this.kid,
      issuer: DEV_ISSUER,
      subject: options.sub,
      expiresIn: ttlSeconds,
    });
  }
}
