import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { SecretBox } from '../../application/ports/secret-box.port';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
// v<n>:<key id>:<base64 of nonce | ciphertext | tag>. The key id picks the key
// on rotation; anything else is a value written before encryption existed.
// v2 is what encrypt writes; v1 values were bound to a context without their
// record (isOwnerBound), and the caller opens them with that older context.
const FORMAT = /^v([12]):([0-9a-f]{8}):([A-Za-z0-9+/]+={0,2})$/;

/** A stored secret could not be decrypted. Carries the key id at most, never a value. */
export class SecretBoxError extends Error {}

/**
 * AES-256-GCM with a fresh random nonce per value (SECRETS_KEY). Values under
 * SECRETS_KEY_PREVIOUS are still read, so a rotated service keeps working
 * until `npm run secrets:rotate` has re-encrypted them.
 */
export class AesGcmSecretBox implements SecretBox {
  readonly keyId: string;
  private readonly keys = new Map<string, Buffer>();

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    for (const key of [current, ...previous]) {
      if (key.length !== 32) throw new SecretBoxError('A secrets key must be 32 bytes');
      if (!this.keys.has(keyIdOf(key))) this.keys.set(keyIdOf(key), key);
    }
    this.keyId = keyIdOf(current);
  }

  encrypt(plaintext: string, context: string): string {
    return this.sealed(this.keyId, plaintext, context);
  }

  rebind(value: string, from: string, to: string): string {
    return this.sealed(FORMAT.exec(value)![2], this.decrypt(value, from), to);
  }

  decrypt(value: string, context: string): string {
    const match = FORMAT.exec(value);
    if (!match) throw new SecretBoxError('A stored secret is not in the encrypted format');
    const [, , keyId, body] = match;
    const key = this.keys.get(keyId);
    if (!key) throw new SecretBoxError(`A stored secret is under key ${keyId}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`);
    const sealed = Buffer.from(body, 'base64');
    if (sealed.length < NONCE_BYTES + TAG_BYTES) throw new SecretBoxError('A stored secret is truncated');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES)).setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError(`A stored secret under key ${keyId} failed authentication: it was altered or belongs elsewhere`);
    }
  }

  isEncrypted(value: string): boolean {
    return FORMAT.test(value);
  }

  isCurrent(value: string): boolean {
    const match = FORMAT.exec(value);
    return match?.[1] === '2' && match[2] === this.keyId;
  }

  isOwnerBound(value: string): boolean {
    return FORMAT.exec(value)?.[1] === '1';
  }

  private sealed(keyId: string, plaintext: string, context: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(keyId)!, nonce).setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([nonce, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v2:${keyId}:${sealed.toString('base64')}`;
  }
}

/** A short public name for a key; an HMAC so the id is not a plain hash of the key. */
function keyIdOf(key: Buffer): string {
  return createHmac('sha256', key).update('keygate secrets key id').digest('hex').slice(0, 8);
}
