/**
 * JSON with object keys sorted by code unit at every level and no spaces (the
 * RFC 8785 ordering; our values hold only strings, integers, finite numbers,
 * booleans and null). Strings are made well-formed first, because PostgreSQL
 * stores a lone surrogate as U+FFFD and the hash must match what is read back.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON has no form for a non-finite number');
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return JSON.stringify(wellFormed(value));
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [wellFormed(k), v] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  throw new TypeError(`canonical JSON has no form for ${typeof value}`);
}

const LONE_SURROGATE_OR_NUL = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\u0000/g;

/** NUL cannot be stored in jsonb either; both become U+FFFD. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE_OR_NUL, '\uFFFD');
}
