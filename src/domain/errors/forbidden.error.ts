import { DomainError } from './domain-error';

/** The caller is known but may not act on what it named. */
export class ForbiddenError extends DomainError {
  readonly code = 'ACCESS.FORBIDDEN';
}
