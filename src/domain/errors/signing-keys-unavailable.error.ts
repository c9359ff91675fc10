import { DomainError } from './domain-error';

/**
 * No public key to check a signature with could be had yet (the list was
 * never fetched successfully): not the caller's fault, and worth a retry
 * once another fetch may be tried.
 */
export class SigningKeysUnavailableError extends DomainError {
  readonly code = 'SIGNING_KEYS.UNAVAILABLE';

  constructor(readonly retryAfterSeconds: number) {
    super('The public keys to check the signature with cannot be fetched; retry later');
  }
}
