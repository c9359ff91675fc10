import { IsIn, IsInt, Max, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_QUOTA_CREDITS, MAX_RATE_LIMIT, MAX_RATE_WINDOW_SECONDS, REFILL_INTERVALS, RefillInterval } from '../../../domain/api-key';
import { echoInput } from '../../../domain/errors';
import { Nested, NullableSchema, OptionalNullable, PropertyDecorator } from './wire-decorators';

/** An integer field within bounds, with the one message the use-cases also give. */
function IntegerIn(min: number, max: number): PropertyDecorator {
  const message = `must be an integer from ${min} to ${max}`;
  return (target, property) => {
    // IsInt last: the schema generator merges in order, and Min and Max would say "number". Any failure says the same.
    for (const decorate of [Min(min, { message }), Max(max, { message }), IsInt({ message })]) decorate(target, property);
  };
}

/** `rate_limit` and `quota` refuse a non-object as the use-cases do. */
export const objectOrNull = (value: unknown) => `must be an object or null, not ${echoInput(value)}`;

export class RateLimitDto {
  @IntegerIn(1, MAX_RATE_LIMIT) limit!: number;
  @IntegerIn(1, MAX_RATE_WINDOW_SECONDS) window_seconds!: number;
}

export class RefillDto {
  @IntegerIn(1, MAX_QUOTA_CREDITS) amount!: number;
  @IsIn(REFILL_INTERVALS, { message: `must be one of ${REFILL_INTERVALS.join(', ')}` }) interval!: RefillInterval;
}

/** A quota as create and PATCH set it: the balance to start from and the refill. */
export class QuotaDto {
  @IntegerIn(0, MAX_QUOTA_CREDITS) remaining!: number;
  @OptionalNullable()
  @Nested(() => RefillDto, objectOrNull)
  refill?: RefillDto | null;
}

@JSONSchema({ description: '`remaining` is the balance now, credits held by replicas included.' })
export class ShownQuotaDto {
  @IsInt() @Min(0) remaining!: number;
  @NullableSchema()
  @Nested(() => RefillDto)
  refill!: RefillDto | null;
}
