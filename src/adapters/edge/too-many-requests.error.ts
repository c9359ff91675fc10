/**
 * A client address is refused for a while (429). Not a DomainError: it is
 * about HTTP clients and their addresses, which no use-case knows of, so it
 * has no ErrorCode and the HTTP error map answers it before its code table.
 */
export class TooManyRequestsError extends Error {
  constructor(
    readonly retryAfterSeconds: number,
    message = 'Too many failed API key validations from this address; retry later',
  ) {
    super(message);
    this.name = 'TooManyRequestsError';
  }
}
