import { createPublicKey } from 'node:crypto';
import { JwksClient } from 'jwks-rsa';
import { fetchBounded } from '../outbound/bounded-fetch';
import { JwksSigningKey } from './jwks-key-set';

export interface JwksFetchBounds {
  /** The whole fetch: connection, redirects, body. */
  timeoutMs: number;
  maxBytes: number;
  maxKeys: number;
}

/**
 * A loader for JwksKeySet: the JWKS at `jwksUri`, fetched within the bounds
 * (fetchBounded: byte cap, deadline, no redirect to http) and turned into
 * signing keys by jwks-rsa, whose own cache and rate limit stay off.
 */
export function jwksLoader(jwksUri: string, bounds: JwksFetchBounds): () => Promise<JwksSigningKey[]> {
  const client = new JwksClient({
    jwksUri,
    cache: false,
    rateLimit: false,
    fetcher: async (uri) => ({ keys: keysOf(await fetchBounded(uri, { what: 'the JWKS', ...bounds }), bounds.maxKeys) }),
  });
  return async () => (await client.getSigningKeys()).map((key) => ({ kid: key.kid, publicKey: createPublicKey(key.getPublicKey()) }));
}

function keysOf(text: string, maxKeys: number): unknown[] {
  const body = JSON.parse(text) as { keys?: unknown };
  const keys = typeof body === 'object' && body !== null ? body.keys : undefined;
  if (!Array.isArray(keys)) throw new Error('the JWKS has no keys array');
  // Each key is imported (an RSA key costs real work): a provider publishes a handful.
  if (keys.length > maxKeys) throw new Error(`the JWKS holds ${keys.length} keys, more than ${maxKeys}`);
  return keys;
}
