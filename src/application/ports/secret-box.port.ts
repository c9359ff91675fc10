/**
 * Encrypts small secrets (upstream header values) before they are stored.
 * `context` names where a value belongs (its owner, its record and field); a
 * value opened with another context is refused, so a stored secret cannot be
 * moved to another record and sent on from there.
 */
export interface SecretBox {
  encrypt(plaintext: string, context: string): string;
  /** Throws when the value was altered, belongs elsewhere, or was encrypted under a key the box does not hold. */
  decrypt(value: string, context: string): string;
  /** An encrypted value opened with `from`, encrypted again for `to` under the same key (so replicas still on that key read it). */
  rebind(value: string, from: string, to: string): string;
  /** False for values stored before encryption existed (plaintext). */
  isEncrypted(value: string): boolean;
  /** Whether an encrypted value is in the current format under the current key, i.e. needs no rotation. */
  isCurrent(value: string): boolean;
  /** Whether an encrypted value was written before values were bound to their record: its context is the older one. */
  isOwnerBound(value: string): boolean;
}
