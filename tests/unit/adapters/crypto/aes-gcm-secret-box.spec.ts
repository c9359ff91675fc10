import { randomBytes } from 'node:crypto';
import { AesGcmSecretBox, SecretBoxError } from '../../../../src/adapters/crypto/aes-gcm-secret-box';

const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
const CONTEXT = '["alice","mcp_servers","headers","Authorization"]';
const OTHER_CONTEXT = '["alice","mcp_servers","5f0c4cf4-5b1e-4b8e-9d57-2f4d7c1e0a11","headers","Authorization"]';

describe('AesGcmSecretBox', () => {
  it('round-trips a value as v2:<key id>:<base64>, with no trace of the plaintext', () => {
    const box = new AesGcmSecretBox(newKey);
    const sealed = box.encrypt('Bearer s3cret ünïcode', CONTEXT);
    expect(sealed).toMatch(new RegExp(`^v2:${box.keyId}:[A-Za-z0-9+/]+=*$`));
    expect(sealed).not.toContain('s3cret');
    expect(box.decrypt(sealed, CONTEXT)).toBe('Bearer s3cret ünïcode');
    expect(box.decrypt(box.encrypt('', CONTEXT), CONTEXT)).toBe('');
  });

  it('uses a fresh nonce for every write', () => {
    const box = new AesGcmSecretBox(newKey);
    const sealed = new Set(Array.from({ length: 50 }, () => box.encrypt('same', CONTEXT)));
    expect(sealed.size).toBe(50);
  });

  it('reads values under a previous key and tells them from current ones', () => {
    const before = new AesGcmSecretBox(oldKey).encrypt('old', CONTEXT);
    const rotated = new AesGcmSecretBox(newKey, [oldKey]);
    expect(rotated.decrypt(before, CONTEXT)).toBe('old');
    expect(rotated.isCurrent(before)).toBe(false);
    expect(rotated.isCurrent(rotated.encrypt('new', CONTEXT))).toBe(true);
  });

  it('refuses a value under a key it does not hold, naming only the key id', () => {
    const sealed = new AesGcmSecretBox(oldKey).encrypt('Bearer s3cret', CONTEXT);
    const other = () => new AesGcmSecretBox(newKey).decrypt(sealed, CONTEXT);
    expect(other).toThrow(SecretBoxError);
    expect(other).toThrow(/neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS/);
    expect(other).not.toThrow(/s3cret/);
  });

  it('refuses a tampered value, and one moved to another context', () => {
    const box = new AesGcmSecretBox(newKey);
    const sealed = box.encrypt('Bearer s3cret', CONTEXT);
    const body = Buffer.from(sealed.split(':')[2], 'base64');
    for (const at of [0, 14, body.length - 1]) {
      const flipped = Buffer.from(body);
      flipped[at] ^= 1;
      expect(() => box.decrypt(`v2:${box.keyId}:${flipped.toString('base64')}`, CONTEXT)).toThrow(/failed authentication/);
    }
    expect(() => box.decrypt(sealed, '["mallory","mcp_servers","headers","Authorization"]')).toThrow(/failed authentication/);
    expect(() => box.decrypt(`v1:${box.keyId}:AAAA`, CONTEXT)).toThrow(/truncated/);
  });

  it('tells values bound the older way (v1) from current ones, and rebinds them under the key they are under', () => {
    const rotated = new AesGcmSecretBox(newKey, [oldKey]);
    const older = new AesGcmSecretBox(oldKey).encrypt('Bearer s3cret', CONTEXT).replace(/^v2:/, 'v1:');
    expect(rotated.isOwnerBound(older)).toBe(true);
    expect(rotated.isCurrent(older)).toBe(false);
    expect(rotated.decrypt(older, CONTEXT)).toBe('Bearer s3cret');
    const bound = rotated.rebind(older, CONTEXT, OTHER_CONTEXT);
    expect(bound).toMatch(new RegExp(`^v2:${new AesGcmSecretBox(oldKey).keyId}:`));
    expect(rotated.isOwnerBound(bound)).toBe(false);
    expect(new AesGcmSecretBox(oldKey).decrypt(bound, OTHER_CONTEXT)).toBe('Bearer s3cret');
    expect(() => rotated.decrypt(bound, CONTEXT)).toThrow(/failed authentication/);
    expect(rotated.isCurrent(rotated.encrypt('x', CONTEXT).replace(/^v2:/, 'v1:'))).toBe(false);
  });

  it('recognises plaintext stored before encryption', () => {
    const box = new AesGcmSecretBox(newKey);
    expect(box.isEncrypted('Bearer s3cret')).toBe(false);
    expect(box.isEncrypted(box.encrypt('x', CONTEXT))).toBe(true);
    expect(() => box.decrypt('Bearer s3cret', CONTEXT)).toThrow(/not in the encrypted format/);
  });

  it('takes 32-byte keys only', () => {
    expect(() => new AesGcmSecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});
