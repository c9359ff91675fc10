import { validateSync } from 'class-validator';
import { clipInput, MAX_FIELD_ERRORS, ValidationError } from '../../../domain/errors';

const UNKNOWN_FIELD = 'is not a known field';

/**
 * Checks a parsed JSON body against a DTO class whose decorated properties are
 * the allowed fields: a non-object body or an unknown field is a 400.
 */
export function allowedFields<T extends object>(Dto: new () => T, body: unknown): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ValidationError.single('body', 'must be a JSON object');
  }
  // class-validator's whitelist lets a "__proto__" field through (its lookup finds Object.prototype),
  // and assigning one would replace the DTO's prototype: a 500 for null. Refused like any unknown field.
  if (Object.hasOwn(body, '__proto__')) throw ValidationError.single('__proto__', UNKNOWN_FIELD);
  const dto = new Dto();
  for (const [key, value] of Object.entries(body)) {
    Object.defineProperty(dto, key, { value, enumerable: true, writable: true, configurable: true });
  }
  const errors = validateSync(dto, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  if (errors.length > 0) {
    throw new ValidationError(errors.slice(0, MAX_FIELD_ERRORS).map((e) => ({
      field: clipInput(e.property),
      // The DTOs only allow fields, so every error is an unknown one; class-validator's own message repeats the name in full.
      message: UNKNOWN_FIELD,
    })));
  }
  return dto;
}
