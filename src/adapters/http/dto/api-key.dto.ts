import { IsArray, IsString, Matches } from 'class-validator';
import { ApiKey, RAW_KEY_PREFIX } from '../../../domain/api-key';
import { SCOPE_LIST } from './common-fields';
import { RateLimitDto, ShownQuotaDto } from './usage-limits.dto';
import { Described, Nested, NullableSchema, SchemaOf, Timestamp, Uuid } from './wire-decorators';

/** A key and its budget's balance (null without a quota), as the key use-cases answer. */
interface KeyWithBalance {
  key: ApiKey;
  quotaRemaining: number | null;
}

/** A key as listed and shown: an allow-list (key_hash never leaves the service). */
export class ApiKeyDto {
  @Uuid() id!: string;
  @IsString() name!: string;
  @Matches(new RegExp(`^${RAW_KEY_PREFIX}[0-9a-f]+$`)) key_prefix!: string;
  @Uuid() user_id!: string;
  @SchemaOf(SCOPE_LIST) @IsArray() scopes!: string[];
  @NullableSchema() @Timestamp() expires_at!: string | null;
  @NullableSchema() @Timestamp() last_used_at!: string | null;
  @Timestamp() created_at!: string;
  @NullableSchema() @Timestamp() revoked_at!: string | null;
  @NullableSchema() @Uuid() replaced_by!: string | null;
  @NullableSchema() @Nested(() => RateLimitDto) rate_limit!: RateLimitDto | null;
  @NullableSchema() @Nested(() => ShownQuotaDto) quota!: ShownQuotaDto | null;

  static from({ key, quotaRemaining }: KeyWithBalance): ApiKeyDto {
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
      ...limitsOf(key, quotaRemaining),
    };
  }
}

/** A new key, with its raw value: the only answer that holds one. */
export class CreatedApiKeyDto {
  @Uuid() id!: string;
  @IsString() name!: string;
  @Matches(new RegExp(`^${RAW_KEY_PREFIX}[0-9a-f]+$`)) key_prefix!: string;
  @Described({ description: 'Shown once, here only.' }) @Matches(new RegExp(`^${RAW_KEY_PREFIX}[0-9a-f]{64}$`)) raw_key!: string;
  @SchemaOf(SCOPE_LIST) @IsArray() scopes!: string[];
  @NullableSchema() @Timestamp() expires_at!: string | null;
  @Timestamp() created_at!: string;
  @NullableSchema() @Nested(() => RateLimitDto) rate_limit!: RateLimitDto | null;
  @NullableSchema() @Nested(() => ShownQuotaDto) quota!: ShownQuotaDto | null;

  static from({ key, rawKey, quotaRemaining }: KeyWithBalance & { rawKey: string }): CreatedApiKeyDto {
    return {
      id: key.id,
      name: key.name,
      key_prefix: key.keyPrefix,
      raw_key: rawKey,
      scopes: key.scopes.toArray(),
      expires_at: iso(key.expiresAt),
      created_at: key.createdAt.toISOString(),
      ...limitsOf(key, quotaRemaining),
    };
  }
}

/** A roll's answer: the new key, and the one it replaces. */
export class RolledApiKeyDto extends CreatedApiKeyDto {
  @Uuid() replaces!: string;

  static override from(rolled: KeyWithBalance & { rawKey: string; replaces: string }): RolledApiKeyDto {
    return { ...CreatedApiKeyDto.from(rolled), replaces: rolled.replaces };
  }
}

function limitsOf(key: ApiKey, quotaRemaining: number | null): Pick<ApiKeyDto, 'rate_limit' | 'quota'> {
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
