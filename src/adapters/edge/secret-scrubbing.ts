/**
 * 64 hex digits or more in a row: a key's secret part without its `svc_` (pasted
 * alone, or cut off by a client), and nothing keygate puts in a URL itself (ids
 * are UUIDs, whose runs are at most 12). Case-insensitive, as a key's hex is
 * the same key to anyone who reads it.
 */
const HEX_RUN = /[0-9a-f]{64,}/gi;

/** An API key (with or without `svc_`) or a JWT put where it does not belong (a path, a request id) still must not reach a log. */
export function scrubSecrets(text: string): string {
  return text
    .replace(/svc_[A-Za-z0-9]*/gi, 'svc_[redacted]')
    .replace(/eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_.-]*/g, '[redacted-jwt]')
    .replace(HEX_RUN, '[redacted-hex]');
}

/** Deeper than this, encoding is not a client's accident; the path is withheld rather than decoded further. */
const MAX_DECODING_ROUNDS = 4;
const ENCODED_RUN = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * A path as it may be logged. `/api/v1/api-keys/%73vc_…` is the key to
 * anyone who decodes it, so masking looks at the path decoded (repeatedly:
 * `%2573` is `%73` is `s`) as well as raw. A path without secrets is logged
 * as it came; one with a secret in either form is logged decoded and masked.
 * Malformed escapes stay as they are; nothing here throws.
 */
export function scrubPath(path: string): string {
  const raw = scrubSecrets(path);
  if (!path.includes('%')) return raw;
  let decoded = path;
  for (let round = 0; round < MAX_DECODING_ROUNDS; round += 1) {
    const next = decodeOnce(decoded);
    if (next === decoded) {
      const masked = scrubSecrets(decoded);
      return masked === decoded ? raw : masked;
    }
    decoded = next;
  }
  return `[path withheld: percent-encoded more than ${MAX_DECODING_ROUNDS} times]`;
}

/** Valid escapes only; bytes that are not UTF-8 become U+FFFD instead of throwing as decodeURIComponent would. */
function decodeOnce(text: string): string {
  return text.replace(ENCODED_RUN, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}
