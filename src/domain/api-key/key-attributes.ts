import { ScopeSet } from '../scope';
import { parseKeyName } from './key-name';
import { QuotaPolicy, RateLimit } from './usage-limits';

/**
 * Plain attributes: set by the key's owner, carried over by a roll, recorded
 * in the audit trail, with no behaviour of their own. A new one is declared
 * here and in PLAIN_KEY_ATTRIBUTES, and then flows through create, update,
 * roll and the trail with no edit there (docs/architecture.md, "Adding a
 * field to keys"). A nullable one is optional in requests.
 */
export interface PlainKeyAttributes {
  name: string;
}

/** Each plain attribute's parser: the domain's guard on what a caller gives (absent at create: undefined). */
export const PLAIN_KEY_ATTRIBUTES: { readonly [K in keyof PlainKeyAttributes]-?: (value: unknown) => PlainKeyAttributes[K] } = {
  name: parseKeyName,
};

type NullableKeys<T> = { [K in keyof T]-?: null extends T[K] ? K : never }[keyof T];

/** What create and update take for the plain attributes: the nullable ones may be left out. */
export type PlainKeyAttributesInput = Omit<PlainKeyAttributes, NullableKeys<PlainKeyAttributes>> &
  Partial<Pick<PlainKeyAttributes, NullableKeys<PlainKeyAttributes>>>;

/**
 * Everything about a key its owner decides, and a roll hands to the new key;
 * the rest of a key (id, owner, prefix, hash, dates, budget) the service
 * assigns. Absent limits read as null.
 */
export interface ApiKeyAttributes extends PlainKeyAttributes {
  scopes: ScopeSet;
  expiresAt: Date | null;
  /** Requests per window on /mcp; null (or absent): unlimited. */
  rateLimit?: RateLimit | null;
  /** Whether tools/call draws on a balance, and its refill; null (or absent): no quota. */
  quota?: QuotaPolicy | null;
}

/**
 * A parser per plain attribute, ready for a field-by-field parse that reports
 * every failure at once. `given`: only the attributes present in the input
 * (an update); otherwise all of them (a create, where absent means null or,
 * for a required one, an error).
 */
export function plainAttributeParsers(
  input: { readonly [K in keyof PlainKeyAttributes]?: unknown },
  given: boolean,
): { [K in keyof PlainKeyAttributes]?: () => PlainKeyAttributes[K] } {
  const parsers: { [field: string]: () => unknown } = {};
  for (const [field, parse] of Object.entries(PLAIN_KEY_ATTRIBUTES)) {
    const value = (input as { [field: string]: unknown })[field];
    if (!given || value !== undefined) parsers[field] = () => (parse as (value: unknown) => unknown)(value);
  }
  return parsers;
}
