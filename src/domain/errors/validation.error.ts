import { DomainError } from './domain-error';
import { clipMessage, MAX_FIELD_ERRORS } from './error-bounds';

export interface FieldError {
  field: string;
  message: string;
}

/**
 * Input that breaks an invariant; nothing was changed. Keeps the first
 * MAX_FIELD_ERRORS errors, each field and message clipped, so that no input
 * can make the error itself large.
 */
export class ValidationError extends DomainError {
  readonly code = 'VALIDATION.FAILED';
  readonly errors: FieldError[];

  constructor(errors: readonly FieldError[]) {
    const kept = keptFieldErrors(errors);
    super(fieldErrorsMessage(kept));
    this.errors = kept;
  }

  static single(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

/** The first MAX_FIELD_ERRORS errors, each field and message clipped: no input can make an error large. */
export function keptFieldErrors(errors: readonly FieldError[]): FieldError[] {
  return errors.slice(0, MAX_FIELD_ERRORS).map(({ field, message }) => ({ field: clipMessage(field), message: clipMessage(message) }));
}

export function fieldErrorsMessage(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}
