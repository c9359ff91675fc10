import { DomainError } from './domain-error';

export class NotFoundError extends DomainError {
  readonly code = 'RESOURCE.NOT_FOUND';

  constructor(
    readonly resource: string,
    readonly id: string,
  ) {
    super(`${resource} ${id} was not found`);
  }
}
