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
  return Object.freeze({
    ...key.attributes,
    id: key.id,
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
  });
}

/** A fresh ApiKey for each hit: it lives for one request, so the young generation takes it back cheaply. */
export function fromCachedKey(keyHash: string, cached: CachedKey): ApiKey {
  const { expiresAt, lastUsedAt, createdAt, budgetId, ...kept } = cached;
  return ApiKey.restore({
    ...kept,
    keyHash,
    expiresAt: expiresAt === null ? null : new Date(expiresAt),
    lastUsedAt: lastUsedAt === null ? null : new Date(lastUsedAt),
    revokedAt: null,
    createdAt: new Date(createdAt),
    budgetId: budgetId ?? cached.id,
  });
}
