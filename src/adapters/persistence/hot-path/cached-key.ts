import { ApiKey, ApiKeyProps, QuotaPolicy, RateLimit } from '../../../domain/api-key';
import { ScopeSet } from '../../../domain/scope';

/**
 * A cached key as few bytes as it can be and still give back the whole
 * ApiKey: dates as epoch milliseconds instead of Date objects, the scope set
 * shared with every other key that holds the same scopes, and no copy of the
 * hash, which is the cache key. Only non-revoked keys are cached, so
 * revokedAt is always null. The full ApiKey with its ScopeSet and four Dates
 * took ~2.2 KB; this takes a fifth of that (bench/key-cache-memory.ts).
 * Every other prop, the key's attributes included, is kept as the key holds
 * it, so a new attribute is cached with no edit here.
 */
export type CachedKey = Readonly<Omit<ApiKeyProps, Recast> & LeanProps>;

/** The props a cached key holds in another form, or not at all. */
type Recast = keyof LeanProps | 'keyHash' | 'revokedAt';

interface LeanProps {
  expiresAt: number | null;
  lastUsedAt: number | null;
  createdAt: number;
  /** Limits are rare and small: null, or the key's own frozen objects (no copy). */
  rateLimit: RateLimit | null;
  quota: QuotaPolicy | null;
  /** Null when it is the key's own id, the common case, so no second string is kept. */
  budgetId: string | null;
}

export function toCachedKey(key: ApiKey, scopes: ScopeSet): CachedKey {
  // A literal of a fixed shape: a copy made by spreading takes about twice the heap (bench/key-cache-memory.ts).
  const cached = {
    id: key.id,
    name: key.name,
    keyPrefix: key.keyPrefix,
    userId: key.userId,
    scopes,
    expiresAt: key.expiresAt?.getTime() ?? null,
    lastUsedAt: key.lastUsedAt?.getTime() ?? null,
    createdAt: key.createdAt.getTime(),
    replacedBy: key.replacedBy,
    rateLimit: key.rateLimit,
    quota: key.quota,
    budgetId: key.budgetId === key.id ? null : key.budgetId,
  } satisfies Partial<CachedKey>;
  return Object.freeze(withOthers<CachedKey>(cached, key.attributes));
}

/** A fresh ApiKey for each hit: it lives for one request, so the young generation takes it back cheaply. */
export function fromCachedKey(keyHash: string, cached: CachedKey): ApiKey {
  const props = {
    id: cached.id,
    name: cached.name,
    keyPrefix: cached.keyPrefix,
    keyHash,
    userId: cached.userId,
    scopes: cached.scopes,
    expiresAt: cached.expiresAt === null ? null : new Date(cached.expiresAt),
    lastUsedAt: cached.lastUsedAt === null ? null : new Date(cached.lastUsedAt),
    revokedAt: null,
    createdAt: new Date(cached.createdAt),
    replacedBy: cached.replacedBy,
    rateLimit: cached.rateLimit,
    quota: cached.quota,
    budgetId: cached.budgetId ?? cached.id,
  } satisfies Partial<ApiKeyProps>;
  return ApiKey.restore(withOthers<ApiKeyProps>(props, cached));
}

/**
 * `named` completed with what `from` holds beyond it: the attributes the
 * literals above do not name (one added to keys later), kept as the key
 * holds them.
 */
function withOthers<T>(named: object, from: object): T {
  const source = from as { [field: string]: unknown };
  const target = named as { [field: string]: unknown };
  // for...in allocates nothing, and this runs on every cache hit.
  for (const field in source) if (!(field in target)) target[field] = source[field];
  return target as T;
}
