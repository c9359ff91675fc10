import { DomainError } from './domain-error';
import { FieldError, fieldErrorsMessage, keptFieldErrors } from './validation.error';

/**
 * Header names or values an upstream request could not carry (a pasted
 * secret with its line break). Unlike other field errors of a tool's
 * arguments, which a model reads as a tool result and corrects, this one is
 * refused as invalid params (-32602) on MCP and 400 on REST. Each error names
 * its header and never quotes a value.
 */
export class InvalidHeaderFieldError extends DomainError {
  readonly code = 'HEADER_FIELD.INVALID';
  readonly errors: FieldError[];

  constructor(errors: readonly FieldError[]) {
    const kept = keptFieldErrors(errors);
    super(fieldErrorsMessage(kept));
    this.errors = kept;
  }
}
