import { DomainError } from './domain-error';

/**
 * A signed request (a secret scanner's leak report) whose signature is
 * missing, malformed, made by a key that is not listed, or wrong: one error
 * for all of them, so a caller learns nothing about which check failed.
 */
export class InvalidSignatureError extends DomainError {
  readonly code = 'SIGNATURE.INVALID';

  constructor() {
    super('The request signature is missing or invalid');
  }
}
