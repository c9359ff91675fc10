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
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return out + ']';
  }
  if (typeof value === 'object') return canonicalObject(value as Record<string, unknown>);
  throw new TypeError(`canonical JSON has no form for ${typeof value}`);
}

/**
 * An object's members sorted by key. Every tool call hashes one event, so the
 * common case (keys already well-formed) sorts the keys as they are, without
 * building entry pairs; a key that is not well-formed takes the general way.
 */
function canonicalObject(value: Record<string, unknown>): string {
  const keys = Object.keys(value);
  for (const key of keys) if (!plainText(key)) return canonicalEntries(value);
  keys.sort(byCodeUnit);
  let out = '{';
  for (const key of keys) {
    const v = value[key];
    if (v === undefined) continue;
    out += (out.length > 1 ? ',' : '') + JSON.stringify(key) + ':' + canonicalJson(v);
  }
  return out + '}';
}

function canonicalEntries(value: Record<string, unknown>): string {
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [wellFormed(k), v] as const)
    .sort(([a], [b]) => byCodeUnit(a, b));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const LONE_SURROGATE_OR_NUL = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\u0000/g;

/** NUL cannot be stored in jsonb either; both become U+FFFD. */
export function wellFormed(text: string): string {
  return plainText(text) ? text : text.replace(LONE_SURROGATE_OR_NUL, '\uFFFD');
}

/** No surrogate (paired or not) and no NUL: then nothing needs replacing, which a test finds faster than a replace. */
const SURROGATE_OR_NUL = /[\uD800-\uDFFF\u0000]/;

function plainText(text: string): boolean {
  return !SURROGATE_OR_NUL.test(text);
}
