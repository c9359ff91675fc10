import { createPublicKey, KeyObject } from 'node:crypto';

const MAX_IDENTIFIER = 256;
const MAX_PEM = 8 * 1024;

export interface PublicKeyList {
  keys: Map<string, KeyObject>;
  /** Identifiers of entries left out (not a P-256 public key in PEM, or malformed), for the log. */
  skipped: string[];
}

/**
 * The keys of a list in GitHub's format:
 * `{"public_keys": [{"key_identifier", "key": <PEM>, "is_current"}]}`. Every
 * listed key is accepted, current or not: the scanner may still sign with the
 * previous key while it rotates. Throws when the list holds no usable key.
 */
export function parsePublicKeyList(text: string, maxKeys: number): PublicKeyList {
  const body = JSON.parse(text) as { public_keys?: unknown };
  const entries = typeof body === 'object' && body !== null ? body.public_keys : undefined;
  if (!Array.isArray(entries)) throw new Error('the key list has no public_keys array');
  if (entries.length > maxKeys) throw new Error(`the key list holds ${entries.length} keys, more than ${maxKeys}`);
  const keys = new Map<string, KeyObject>();
  const skipped: string[] = [];
  for (const entry of entries as { key_identifier?: unknown; key?: unknown }[]) {
    const id = entry?.key_identifier;
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_IDENTIFIER) {
      skipped.push('(an entry without a usable key_identifier)');
      continue;
    }
    const key = p256Key(entry.key);
    if (key) keys.set(id, key);
    else skipped.push(id);
  }
  if (keys.size === 0) throw new Error('the key list holds no ECDSA P-256 public key');
  return { keys, skipped };
}

function p256Key(pem: unknown): KeyObject | null {
  if (typeof pem !== 'string' || pem.length > MAX_PEM) return null;
  try {
    const key = createPublicKey({ key: pem, format: 'pem' });
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? key : null;
  } catch {
    return null;
  }
}
