import { ApiKey, ApiKeyProps, QuotaPolicy, RateLimit } from '../../../domain/api-key';
import { ScopeSet } from '../../../domain/scope';

/**
 * A cached key as few bytes as it can be and still give back the whole
 * ApiKey: dates as epoch milliseconds instead of Date objects, the scope set
 * shared with every other key that holds the same scopes, and no copy of the
 * hash, which is the cache key. Only non-revoked keys are cached, so
 * revokedAt is always null. The full ApiKey with its ScopeSet and four Dates
 * took ~2.2 KB; this takes a fifth of that (bench/key-cache-memory.ts).
 */
export interface CachedKey {
  readonly id: string;
  readonly name: string;
  readonly keyPrefix: string;
  readonly userId: string;
  readonly scopes: ScopeSet;
  readonly expiresAt: number | null;
  readonly lastUsedAt: number | null;
  readonly createdAt: number;
  readonly replacedBy: string | null;
  /** Limits are rare and small: null, or the key's own frozen objects (no copy). */
  readonly rateLimit: RateLimit | null;
  readonly quota: QuotaPolicy | null;
  /** Null when it is the key's own id, the common case, so no second string is kept. */
  readonly budgetId: string | null;
}

/**
 * Fails to compile when ApiKeyProps gains a field that CachedKey does not
 * carry (optional ones included): a hit would otherwise hand back a key
 * without it, e.g. without its limits.
 */
type Uncached = Exclude<keyof ApiKeyProps, keyof CachedKey | 'keyHash' | 'revokedAt'>;
const EVERY_FIELD_CACHED: [Uncached] extends [never] ? true : never = true;
void EVERY_FIELD_CACHED;

export function toCachedKey(key: ApiKey, scopes: ScopeSet): CachedKey {
  return Object.freeze({
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
  });
}

/** A fresh ApiKey for each hit: it lives for one request, so the young generation takes it back cheaply. */
export function fromCachedKey(keyHash: string, cached: CachedKey): ApiKey {
  return ApiKey.restore({
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
  });
}
