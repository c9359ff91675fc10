/**
 * JSON with object keys sorted by code unit at every level and no spaces (the
 * RFC 8785 ordering; our values hold only strings, integers, finite numbers,
 * booleans and null). Strings are made well-formed first, because PostgreSQL
 * stores a lone surrogate as U+FFFD and the hash must match what is read back.
 *
 * Every tool call hashes its arguments and its audit event, so the common
 * case, plain objects of plain text, is ordered in place (objects copied only
 * when their keys are out of order) and serialized by the engine's own
 * JSON.stringify; anything else (text to repair, a value with no canonical
 * form) takes the general way below.
 */
export function canonicalJson(value: unknown): string {
  const ordered = orderedPlain(value);
  return ordered === NOT_PLAIN ? generalJson(value) : JSON.stringify(ordered);
}

const NOT_PLAIN = Symbol('notPlain');

/**
 * `value` with every object's keys in code-unit order, the same object where
 * they already are; NOT_PLAIN when JSON.stringify could differ from the
 * general way: text that is not well-formed, a non-finite number, undefined
 * in an array, anything but null, booleans, numbers, strings, arrays and
 * plain objects.
 */
function orderedPlain(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
      return plainText(value) ? value : NOT_PLAIN;
    case 'number':
      return Number.isFinite(value) ? value : NOT_PLAIN;
    case 'boolean':
      return value;
    case 'object':
      if (value === null) return value;
      if (Array.isArray(value)) return orderedArray(value);
      return orderedObject(value as Record<string, unknown>);
    default:
      return NOT_PLAIN;
  }
}

function orderedArray(value: unknown[]): unknown {
  let copy: unknown[] | null = null;
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    const ordered = item === undefined ? NOT_PLAIN : orderedPlain(item);
    if (ordered === NOT_PLAIN) return NOT_PLAIN;
    if (ordered !== item) (copy ??= value.slice())[i] = ordered;
  }
  return copy ?? value;
}

function orderedObject(value: Record<string, unknown>): unknown {
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  const keys = Object.keys(value);
  let sorted = true;
  let changed = false;
  const members: unknown[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    // A key that starts with a digit may be an array index, which objects keep first in numeric order whatever is asked.
    if (!plainText(key) || startsWithDigit(key)) return NOT_PLAIN;
    if (i > 0 && keys[i - 1] > key) sorted = false;
    const inner = value[key];
    if (inner === undefined) {
      changed = true;
      continue;
    }
    const ordered = orderedPlain(inner);
    if (ordered === NOT_PLAIN) return NOT_PLAIN;
    if (ordered !== inner) changed = true;
    members[i] = ordered;
  }
  if (sorted && !changed) return value;
  // A null prototype: a key named __proto__ stays a member, as JSON.parse made it.
  const copy = Object.create(null) as Record<string, unknown>;
  const order = keys.map((key, i) => i);
  if (!sorted) order.sort((a, b) => byCodeUnit(keys[a], keys[b]));
  for (const i of order) if (value[keys[i]] !== undefined) copy[keys[i]] = members[i];
  return copy;
}

function startsWithDigit(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57;
}

/** The general way, for values the fast one declines: repairs text, and throws for what has no canonical form. */
function generalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON has no form for a non-finite number');
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return JSON.stringify(wellFormed(value));
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + generalJson(value[i]);
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
    out += (out.length > 1 ? ',' : '') + JSON.stringify(key) + ':' + generalJson(v);
  }
  return out + '}';
}

function canonicalEntries(value: Record<string, unknown>): string {
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [wellFormed(k), v] as const)
    .sort(([a], [b]) => byCodeUnit(a, b));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${generalJson(v)}`).join(',')}}`;
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
