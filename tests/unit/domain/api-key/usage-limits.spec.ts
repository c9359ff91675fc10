import { nextRefillAt, parseQuota, parseRateLimit, refillPeriodStart } from '../../../../src/domain/api-key';
import { ValidationError } from '../../../../src/domain/errors';

function fieldOf(parse: () => unknown): string | null {
  try {
    parse();
    return null;
  } catch (error) {
    return error instanceof ValidationError ? error.errors[0].field : 'not a ValidationError';
  }
}

describe('parseRateLimit', () => {
  it('reads {limit, window_seconds}, and null as no limit', () => {
    expect(parseRateLimit({ limit: 1, window_seconds: 86_400 })).toEqual({ limit: 1, windowSeconds: 86_400 });
    expect(parseRateLimit(null)).toBeNull();
  });

  it.each([
    [{ limit: 0, window_seconds: 1 }, 'rate_limit.limit'],
    [{ limit: 1_000_001, window_seconds: 1 }, 'rate_limit.limit'],
    [{ limit: '5', window_seconds: 1 }, 'rate_limit.limit'],
    [{ limit: 5, window_seconds: 0 }, 'rate_limit.window_seconds'],
    [{ limit: 5, window_seconds: 2.5 }, 'rate_limit.window_seconds'],
    [{ limit: 5, window_seconds: 1, x: 1 }, 'rate_limit.x'],
    [[], 'rate_limit'],
    [7, 'rate_limit'],
  ])('refuses %j naming %s', (value, field) => {
    expect(fieldOf(() => parseRateLimit(value))).toBe(field);
  });
});

describe('parseQuota', () => {
  it('reads the balance and the refill; an absent refill is none', () => {
    expect(parseQuota({ remaining: 0 })).toEqual({ remaining: 0, refill: null });
    expect(parseQuota({ remaining: 1_000_000_000, refill: { amount: 5, interval: 'month' } })).toEqual({
      remaining: 1_000_000_000,
      refill: { amount: 5, interval: 'month' },
    });
    expect(parseQuota(null)).toBeNull();
  });

  it.each([
    [{}, 'quota.remaining'],
    [{ remaining: -1 }, 'quota.remaining'],
    [{ remaining: 1_000_000_001 }, 'quota.remaining'],
    [{ remaining: 1, refill: { amount: 0, interval: 'hour' } }, 'quota.refill.amount'],
    [{ remaining: 1, refill: { amount: 1, interval: 'year' } }, 'quota.refill.interval'],
    [{ remaining: 1, refill: 'daily' }, 'quota.refill'],
    [{ remaining: 1, refill: { amount: 1, interval: 'day', tz: 'UTC' } }, 'quota.refill.tz'],
  ])('refuses %j naming %s', (value, field) => {
    expect(fieldOf(() => parseQuota(value))).toBe(field);
  });
});

describe('refill periods', () => {
  const at = new Date('2026-01-31T23:59:59.999Z');

  it('start at the UTC hour, day and month', () => {
    expect(refillPeriodStart('hour', at).toISOString()).toBe('2026-01-31T23:00:00.000Z');
    expect(refillPeriodStart('day', at).toISOString()).toBe('2026-01-31T00:00:00.000Z');
    expect(refillPeriodStart('month', at).toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('end where the next begins, across a month of 28 days', () => {
    expect(nextRefillAt('hour', at).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(nextRefillAt('day', at).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(nextRefillAt('month', new Date('2026-02-14T00:00:00Z')).toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });
});
