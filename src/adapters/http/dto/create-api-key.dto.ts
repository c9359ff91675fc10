import { IsArray, IsString, MaxLength } from 'class-validator';
import { CreateKeyInput } from '../../../application/use-cases/create-key/create-key.use-case';
import { MAX_KEY_NAME_LENGTH } from '../../../domain/api-key';
import { NAME_REQUIRED, SCOPE_LIST } from './common-fields';
import { objectOrNull, QuotaDto, RateLimitDto } from './usage-limits.dto';
import { Nested, OptionalNullable, SchemaOf, Timestamp, Uuid } from './wire-decorators';

export const NAME_TOO_LONG = `must be at most ${MAX_KEY_NAME_LENGTH} characters`;
export const EXPIRY = 'must be an ISO-8601 timestamp with a time zone, or null';

/** POST /api/v1/api-keys. The wire shape; CreateKey checks the rest (a name not blank, scopes in the catalog, an expiry ahead). */
export class CreateApiKeyDto {
  @MaxLength(MAX_KEY_NAME_LENGTH, { message: NAME_TOO_LONG })
  @IsString({ message: NAME_REQUIRED })
  name!: string;

  @OptionalNullable()
  @Uuid('must be a UUID')
  user_id?: string | null;

  @OptionalNullable()
  @Timestamp(EXPIRY)
  expires_at?: string | null;

  @OptionalNullable()
  @SchemaOf(SCOPE_LIST)
  @IsArray({ message: 'must be an array of scope strings' })
  scopes?: string[] | null;

  @OptionalNullable()
  @Nested(() => RateLimitDto, objectOrNull)
  rate_limit?: RateLimitDto | null;

  @OptionalNullable()
  @Nested(() => QuotaDto, objectOrNull)
  quota?: QuotaDto | null;

  /** CreateKey's input, from the wire names (null scopes are full access, as absent ones). */
  toInput(): Omit<CreateKeyInput, 'actor'> {
    const { name, user_id, expires_at, scopes, rate_limit, quota } = this;
    return { name, userId: user_id, expiresAt: expires_at, scopes: scopes ?? undefined, rateLimit: rate_limit, quota };
  }
}
