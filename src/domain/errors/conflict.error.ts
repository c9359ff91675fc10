import { DomainError } from './domain-error';

/** The request is well formed but clashes with the current state. */
export class ConflictError extends DomainError {
  readonly code = 'STATE.CONFLICT';
}
