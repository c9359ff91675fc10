import { DomainError } from './domain-error';

/** The caller's scopes do not allow what it asked for; `scopes` are the ones it lacks (all needed). */
export class InsufficientScopeError extends DomainError {
  readonly code = 'SCOPE.INSUFFICIENT';

  constructor(readonly scopes: readonly string[]) {
    super(`This call needs the scope ${scopes.join(' ')}, which the caller's scopes do not grant`);
  }
}
