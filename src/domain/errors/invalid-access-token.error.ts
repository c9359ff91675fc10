import { DomainError } from './domain-error';

/** The user's identity-provider token is missing, malformed, expired or wrongly signed. */
export class InvalidAccessTokenError extends DomainError {
  readonly code = 'ACCESS_TOKEN.INVALID';
}
