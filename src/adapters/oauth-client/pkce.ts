import { createHash, randomBytes } from 'node:crypto';

/** A PKCE pair (RFC 7636, S256 only: MCP forbids `plain`). The verifier is secret. */
export interface PkcePair {
  verifier: string;
  challenge: string;
}

/** 32 random bytes, base64url: 43 characters, the shortest verifier RFC 7636 allows, with 256 bits. */
export function pkcePair(): PkcePair {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256Challenge(verifier) };
}

export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** An unguessable `state` for one authorization. */
export function randomState(): string {
  return randomBytes(24).toString('base64url');
}
