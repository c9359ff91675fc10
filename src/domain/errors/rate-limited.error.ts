import { DomainError } from './domain-error';

/** A key went past its rate limit in the current window; the fields are what the RateLimit headers say. */
export class RateLimitedError extends DomainError {
  readonly code = 'RATE_LIMIT.EXCEEDED';

  constructor(
    readonly limit: number,
    readonly windowSeconds: number,
    /** Whole seconds until the window ends, at least 1. */
    readonly retryAfterSeconds: number,
  ) {
    super(`This key allows ${limit} requests per ${windowSeconds} s; retry in ${retryAfterSeconds} s`);
  }
}
