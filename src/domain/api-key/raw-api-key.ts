/** Spec 2.2: `svc_` and 64 lowercase hex characters (32 random bytes). */
export const RAW_KEY_PREFIX = 'svc_';
export const RAW_KEY_LENGTH = 68;
export const KEY_PREFIX_LENGTH = 8;
const FORMAT = /^svc_[0-9a-f]{64}$/;

export function isWellFormedRawKey(value: string): boolean {
  return value.length === RAW_KEY_LENGTH && FORMAT.test(value);
}

/** The display prefix: the first 8 characters of the raw key. */
export function displayPrefixOf(rawKey: string): string {
  return rawKey.slice(0, KEY_PREFIX_LENGTH);
}
