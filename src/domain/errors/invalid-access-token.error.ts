import { DomainError } from './domain-error';

/** The user's identity-provider token is missing, malformed, expired or wrongly signed. */
export class InvalidAccessTokenError extends DomainError {
  readonly code = 'ACCESS_TOKEN.INVALID';

  /** `presented` is false when the request carried no credentials at all (RFC 6750 then names no error). */
  constructor(
    message: string,
    readonly presented = true,
  ) {
    super(message);
  }
}
