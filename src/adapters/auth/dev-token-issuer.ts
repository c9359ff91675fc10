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

/**
 * The development identity provider: an ES256 key kept in the data directory,
 * whose public half the service publishes as a JWKS. Never used in production.
 */
export class DevTokenIssuer {
  private constructor(
    private readonly privateKey: KeyObject,
    readonly kid: string,
  ) {}

  static loadOrCreate(dataDir: string): DevTokenIssuer {
    const file = path.join(dataDir, 'dev-issuer-key.pem');
    if (!existsSync(file)) {
      mkdirSync(dataDir, { recursive: true });
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    }
    const privateKey = createPrivateKey(readFileSync(file));
    const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
    return new DevTokenIssuer(privateKey, createHash('sha256').update(spki).digest('base64url').slice(0, 16));
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

  mint(options: MintOptions): string {
    const roles = options.admin ? [options.adminRole ?? 'admin'] : [];
    return jwt.sign({ roles }, this.privateKey, {
      algorithm: 'ES256',
      keyid: this.kid,
      issuer: DEV_ISSUER,
      subject: options.sub,
      expiresIn: options.ttlSeconds ?? 24 * 3600,
    });
  }
}
