import { DomainError } from './domain-error';

export interface FieldError {
  field: string;
  message: string;
}

/** Input that breaks an invariant; nothing was changed. */
export class ValidationError extends DomainError {
  readonly code = 'VALIDATION.FAILED';

  constructor(readonly errors: FieldError[]) {
    super(errors.map((e) => `${e.field}: ${e.message}`).join('; '));
  }

  static single(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}
