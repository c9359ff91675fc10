import { echoInput, ValidationError } from '../errors';

export const MAX_RATE_LIMIT = 1_000_000;
export const MAX_RATE_WINDOW_SECONDS = 86_400;
export const MAX_QUOTA_CREDITS = 1_000_000_000;
export const REFILL_INTERVALS = ['hour', 'day', 'month'] as const;

export type RefillInterval = (typeof REFILL_INTERVALS)[number];

/** At most `limit` requests per fixed window of `windowSeconds`, windows aligned to the epoch. */
export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

/** Sets the balance to `amount` at the start of each UTC `interval`. */
export interface QuotaRefill {
  amount: number;
  interval: RefillInterval;
}

/** A key's quota as configured; the balance itself lives apart, shared by the key's roll chain. */
export interface QuotaPolicy {
  refill: QuotaRefill | null;
}

/** A quota as PATCH and create give it: the balance to set and the refill. */
export interface QuotaSetting extends QuotaPolicy {
  remaining: number;
}

/** `rate_limit`: null, or `{limit, window_seconds}`; unknown fields refused. */
export function parseRateLimit(value: unknown, field = 'rate_limit'): RateLimit | null {
  if (value === null) return null;
  const object = plainObject(value, field, ['limit', 'window_seconds']);
  return {
    limit: integerIn(object.limit, `${field}.limit`, 1, MAX_RATE_LIMIT),
    windowSeconds: integerIn(object.window_seconds, `${field}.window_seconds`, 1, MAX_RATE_WINDOW_SECONDS),
  };
}

/** `quota`: null, or `{remaining, refill: null | {amount, interval}}`; unknown fields refused. */
export function parseQuota(value: unknown, field = 'quota'): QuotaSetting | null {
  if (value === null) return null;
  const object = plainObject(value, field, ['remaining', 'refill']);
  return {
    remaining: integerIn(object.remaining, `${field}.remaining`, 0, MAX_QUOTA_CREDITS),
    refill: parseRefill(object.refill, `${field}.refill`),
  };
}

function parseRefill(value: unknown, field: string): QuotaRefill | null {
  if (value === null || value === undefined) return null;
  const object = plainObject(value, field, ['amount', 'interval']);
  const interval = object.interval;
  if (typeof interval !== 'string' || !(REFILL_INTERVALS as readonly string[]).includes(interval)) {
    throw ValidationError.single(`${field}.interval`, `must be one of ${REFILL_INTERVALS.join(', ')}`);
  }
  return { amount: integerIn(object.amount, `${field}.amount`, 1, MAX_QUOTA_CREDITS), interval: interval as RefillInterval };
}

/** The start of the UTC hour, day or month holding `at`: when a refill falls due. */
export function refillPeriodStart(interval: RefillInterval, at: Date): Date {
  const d = new Date(at.getTime());
  if (interval === 'month') return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  if (interval === 'day') return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()));
}

/** The start of the next period after the one holding `at`. */
export function nextRefillAt(interval: RefillInterval, at: Date): Date {
  const start = refillPeriodStart(interval, at);
  if (interval === 'month') return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  return new Date(start.getTime() + (interval === 'day' ? 86_400_000 : 3_600_000));
}

function plainObject(value: unknown, field: string, known: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ValidationError.single(field, `must be an object or null, not ${echoInput(value)}`);
  }
  const unknownField = Object.keys(value).find((name) => !known.includes(name));
  if (unknownField !== undefined) throw ValidationError.single(`${field}.${unknownField}`, 'is not a known field');
  return value as Record<string, unknown>;
}

function integerIn(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw ValidationError.single(field, `must be an integer from ${min} to ${max}`);
  }
  return value;
}
