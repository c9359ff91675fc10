import { ApiKey, ApiKeyAttributes, QuotaPolicy, RateLimit, RefillInterval } from '../../domain/api-key';
import { ScopeSet } from '../../domain/scope';
import { ApiKeyRow } from './api-key.row';

export class ApiKeyMapper {
  static toDomain(row: ApiKeyRow): ApiKey {
    return ApiKey.restore({
      id: row.id,
      name: row.name,
      keyPrefix: row.key_prefix,
      keyHash: row.key_hash,
      userId: row.user_id,
      scopes: ScopeSet.fromTrusted(row.scopes),
      expiresAt: row.expires_at,
      lastUsedAt: row.last_used_at,
      revokedAt: row.revoked_at,
      createdAt: row.created_at,
      replacedBy: row.replaced_by,
      budgetId: row.budget_id ?? row.id,
      rateLimit: rateLimitOf(row),
      quota: quotaOf(row),
    });
  }

  /** The columns of a key's attributes, as an insert or an update writes them (undefined: leave as is). */
  static attributeColumns(attributes: Partial<ApiKeyAttributes>): Partial<ApiKeyRow> {
    const { name, scopes, expiresAt, rateLimit, quota } = attributes;
    const columns: Partial<ApiKeyRow> = {};
    if (name !== undefined) columns.name = name;
    if (scopes !== undefined) columns.scopes = scopes.toArray();
    if (expiresAt !== undefined) columns.expires_at = expiresAt;
    if (rateLimit !== undefined) {
      columns.rate_limit_limit = rateLimit?.limit ?? null;
      columns.rate_limit_window_seconds = rateLimit?.windowSeconds ?? null;
    }
    if (quota !== undefined) {
      columns.has_quota = quota !== null;
      columns.quota_refill_amount = quota?.refill?.amount ?? null;
      columns.quota_refill_interval = quota?.refill?.interval ?? null;
    }
    return columns;
  }
}

function rateLimitOf(row: ApiKeyRow): RateLimit | null {
  if (row.rate_limit_limit === null || row.rate_limit_window_seconds === null) return null;
  return { limit: row.rate_limit_limit, windowSeconds: row.rate_limit_window_seconds };
}

function quotaOf(row: ApiKeyRow): QuotaPolicy | null {
  if (!row.has_quota) return null;
  if (row.quota_refill_amount === null || row.quota_refill_interval === null) return { refill: null };
  return { refill: { amount: Number(row.quota_refill_amount), interval: row.quota_refill_interval as RefillInterval } };
}
