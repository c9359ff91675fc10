import { DomainError } from './domain-error';

/**
 * One error for unknown, revoked, expired and malformed keys, so a caller
 * cannot tell which check failed.
 */
export class InvalidApiKeyError extends DomainError {
  readonly code = 'API_KEY.INVALID';

  /** `presented` is false when the request carried no credentials at all (RFC 6750 then names no error). */
  constructor(readonly presented = true) {
    super('The API key is missing, unknown, revoked or expired');
  }
}
