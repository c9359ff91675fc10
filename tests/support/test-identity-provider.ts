import { generateKeyPairSync, KeyObject } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { testCa } from './local-ca';

export const TEST_ISSUER = 'https://idp.keygate.test/';
/** Not a word the service says itself, so a test can tell whether an answer names it. */
export const TEST_AUDIENCE = 'keygate-api-under-test';

interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface TokenOptions {
  sub?: unknown;
  roles?: unknown;
  alg?: 'RS256' | 'ES256';
  issuer?: string;
  audience?: string;
  /** Seconds from now; `null` leaves `exp` out. */
  expiresIn?: number | null;
  extra?: Record<string, unknown>;
  /** Extra JOSE header parameters (`crit`, a made-up `kid`, ...). */
  header?: Record<string, unknown>;
  /** Signs with this key of the JWKS instead of the first of `alg`. */
  kid?: string;
  /** Leaves `iat` out. */
  noIat?: boolean;
}

/** How the JWKS endpoint answers instead of plainly: given the JWKS document it would send. */
export type JwksAnswer = (res: http.ServerResponse, jwks: string) => void;

/**
 * A real identity provider for tests: RSA and EC signing keys whose public
 * halves are served as a JWKS over HTTP on loopback, or over https
 * (`start({ https: true })`, with the test process's local CA, testCa()) for a service in production.
 */
export class TestIdentityProvider {
  readonly keys: SigningKey[] = [rsaKey('rs-1'), ecKey('ec-1')];
  /** Signs like the provider but is not in the JWKS. */
  readonly stranger: SigningKey = rsaKey('rs-1');
  jwksRequests = 0;
  private readonly published: object[] = [];
  /** null: the JWKS, at once. */
  answer: JwksAnswer | null = null;
  private server?: http.Server;
  private rotations = 0;
  jwksUri = '';

  async start(options: { https?: boolean } = {}): Promise<this> {
    const serve = (_req: http.IncomingMessage, res: http.ServerResponse) => {
      this.jwksRequests += 1;
      res.setHeader('Content-Type', 'application/json');
      const jwks = JSON.stringify(this.jwks());
      if (this.answer) this.answer(res, jwks);
      else res.end(jwks);
    };
    const ca = options.https ? await testCa() : null;
    this.server = ca ? https.createServer({ key: ca.serverKey, cert: ca.serverCert }, serve) : http.createServer(serve);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const scheme = options.https ? 'https' : 'http';
    this.jwksUri = `${scheme}://127.0.0.1:${(this.server.address() as AddressInfo).port}/jwks.json`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Publishes a new RSA key beside the others, as a provider does before signing with it; returns its kid. */
  rotate(): string {
    this.rotations += 1;
    const key = rsaKey(`rs-new-${this.rotations}`);
    this.keys.push(key);
    return key.kid;
  }

  token(options: TokenOptions = {}): string {
    const key =
      options.kid === undefined
        ? this.keys.find((k) => k.alg === (options.alg ?? 'RS256'))!
        : this.keys.find((k) => k.kid === options.kid)!;
    return sign(key, options);
  }

  /**
   * Serves another issuer's public keys in this JWKS too, as one JWKS that
   * JWT_JWKS_URI names would for every issuer of MCP_AUTHORIZATION_SERVERS
   * (a test's real authorization server, whose private keys stay its own).
   */
  publish(keys: readonly object[]): void {
    this.published.push(...keys);
  }

  /** The JWKS document the provider serves (for a test that serves it elsewhere, over https say). */
  jwks(): { keys: object[] } {
    return { keys: [...this.keys.map(publicJwk), ...this.published] };
  }

  tokenFromStranger(options: TokenOptions = {}): string {
    return sign(this.stranger, options);
  }
}

function sign(key: SigningKey, options: TokenOptions): string {
  const payload: Record<string, unknown> = { ...options.extra };
  if (options.sub !== undefined) payload.sub = options.sub;
  if (options.roles !== undefined) payload.roles = options.roles;
  return jwt.sign(payload, key.privateKey, {
    algorithm: key.alg,
    keyid: key.kid,
    issuer: options.issuer ?? TEST_ISSUER,
    audience: options.audience ?? TEST_AUDIENCE,
    noTimestamp: options.noIat === true,
    ...(options.expiresIn !== null && { expiresIn: options.expiresIn ?? 600 }),
    ...(options.header && { header: { alg: key.alg, kid: key.kid, ...options.header } }),
  });
}

function rsaKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, alg: 'RS256', privateKey, publicKey };
}

function ecKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, alg: 'ES256', privateKey, publicKey };
}

function publicJwk(key: SigningKey): object {
  return { ...key.publicKey.export({ format: 'jwk' }), kid: key.kid, alg: key.alg, use: 'sig' };
}
