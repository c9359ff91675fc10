import { ApiKey } from '../../../domain/api-key';
import { ApiKeyDto, CreatedApiKeyDto, RolledApiKeyDto } from './api-key.dto';

/** Allow-lists of response fields: key_hash never leaves the service. `quotaRemaining`: the budget's balance. */
export function presentKey(key: ApiKey, quotaRemaining: number | null = null): ApiKeyDto {
  return {
    id: key.id,
    name: key.name,
    key_prefix: key.keyPrefix,
    user_id: key.userId,
    scopes: key.scopes.toArray(),
    expires_at: iso(key.expiresAt),
    last_used_at: iso(key.lastUsedAt),
    created_at: key.createdAt.toISOString(),
    revoked_at: iso(key.revokedAt),
    replaced_by: key.replacedBy,
    ...presentLimits(key, quotaRemaining),
  };
}

export function presentCreatedKey(key: ApiKey, rawKey: string, quotaRemaining: number | null = null): CreatedApiKeyDto {
  return {
    id: key.id,
    name: key.name,
    key_prefix: key.keyPrefix,
    raw_key: rawKey,
    scopes: key.scopes.toArray(),
    expires_at: iso(key.expiresAt),
    created_at: key.createdAt.toISOString(),
    ...presentLimits(key, quotaRemaining),
  };
}

/** A roll's new key, naming the one it replaces. */
export function presentRolledKey(key: ApiKey, rawKey: string, replaces: string, quotaRemaining: number | null): RolledApiKeyDto {
  return { ...presentCreatedKey(key, rawKey, quotaRemaining), replaces };
}

function presentLimits(key: ApiKey, quotaRemaining: number | null): Pick<ApiKeyDto, 'rate_limit' | 'quota'> {
  const { rateLimit, quota } = key;
  return {
    rate_limit: rateLimit ? { limit: rateLimit.limit, window_seconds: rateLimit.windowSeconds } : null,
    quota: quota
      ? { remaining: quotaRemaining ?? 0, refill: quota.refill ? { amount: quota.refill.amount, interval: quota.refill.interval } : null }
      : null,
  };
}

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
