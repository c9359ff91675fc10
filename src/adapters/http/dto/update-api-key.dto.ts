import { IsArray, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_GRACE_SECONDS, RollKeyInput } from '../../../application/use-cases/roll-key/roll-key.use-case';
import { UpdateKeyInput } from '../../../application/use-cases/update-key/update-key.use-case';
import { MAX_KEY_NAME_LENGTH } from '../../../domain/api-key';
import { NAME_REQUIRED, SCOPE_LIST } from './common-fields';
import { EXPIRY, NAME_TOO_LONG } from './create-api-key.dto';
import { objectOrNull, QuotaDto, RateLimitDto } from './usage-limits.dto';
import { Described, Nested, Optional, OptionalNullable, SchemaOf, Timestamp } from './wire-decorators';

/** PATCH /api/v1/api-keys/:id: any of these; UpdateKey requires one and checks the rest. `scopes: null` is refused. */
export class UpdateApiKeyDto {
  @Optional()
  @MaxLength(MAX_KEY_NAME_LENGTH, { message: NAME_TOO_LONG })
  @IsString({ message: NAME_REQUIRED })
  name?: string;

  @Optional()
  @SchemaOf(SCOPE_LIST)
  @IsArray({
    message: ({ value }) =>
      value === null ? 'must be an array of scope strings ([] means full access)' : 'must be an array of scope strings',
  })
  scopes?: string[];

  @OptionalNullable()
  @Timestamp(EXPIRY)
  expires_at?: string | null;

  @OptionalNullable()
  @Nested(() => RateLimitDto, objectOrNull)
  rate_limit?: RateLimitDto | null;

  @OptionalNullable()
  @Nested(() => QuotaDto, objectOrNull)
  quota?: QuotaDto | null;

  /** UpdateKey's input, from the wire names; absent fields stay absent (unchanged). */
  toInput(): Omit<UpdateKeyInput, 'actor' | 'id'> {
    const { name, scopes, expires_at, rate_limit, quota } = this;
    return { name, scopes, expiresAt: expires_at, rateLimit: rate_limit, quota };
  }
}

const GRACE = `must be an integer from 0 to ${MAX_GRACE_SECONDS}`;

/** POST /api/v1/api-keys/:id/roll; the body itself may be left out. */
export class RollApiKeyDto {
  @Optional()
  @Described({ default: 0 })
  @IsInt({ message: GRACE })
  @Max(MAX_GRACE_SECONDS, { message: GRACE })
  @Min(0, { message: GRACE })
  grace_seconds?: number;

  toInput(): Omit<RollKeyInput, 'actor' | 'id'> {
    return { graceSeconds: this.grace_seconds };
  }
}
