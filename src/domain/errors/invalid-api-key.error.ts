import { DomainError } from './domain-error';

/**
 * One error for unknown, revoked, expired and malformed keys, so a caller
 * cannot tell which check failed.
 */
export class InvalidApiKeyError extends DomainError {
  readonly code = 'API_KEY.INVALID';

  constructor() {
    super('The API key is missing, unknown, revoked or expired');
  }
}
