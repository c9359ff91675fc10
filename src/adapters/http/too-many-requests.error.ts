/** A client is refused for a while (429); not a domain failure, so it lives at the edge. */
export class TooManyRequestsError extends Error {
  readonly code = 'HTTP.TOO_MANY_REQUESTS';

  constructor(
    readonly retryAfterSeconds: number,
    message = 'Too many failed API key validations from this address; retry later',
  ) {
    super(message);
    this.name = 'TooManyRequestsError';
  }
}
