import { DomainError } from './domain-error';

/** The caller's scopes do not allow what it asked for; `scope` is the one it lacks. */
export class InsufficientScopeError extends DomainError {
  readonly code = 'SCOPE.INSUFFICIENT';

  constructor(readonly scope: string) {
    super(`This call needs the scope ${scope}, which the caller's scopes do not grant`);
  }
}
