import { IsArray, IsString, Matches } from 'class-validator';
import { RAW_KEY_PREFIX } from '../../../domain/api-key';
import { SCOPE_LIST } from './common-fields';
import { RateLimitDto, ShownQuotaDto } from './usage-limits.dto';
import { Described, Nested, NullableSchema, SchemaOf, Timestamp, Uuid } from './wire-decorators';

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
}

/** A roll's answer: the new key, and the one it replaces. */
export class RolledApiKeyDto extends CreatedApiKeyDto {
  @Uuid() replaces!: string;
}
