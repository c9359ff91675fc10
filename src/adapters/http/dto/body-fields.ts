import { validateSync } from 'class-validator';
import { clipInput, MAX_FIELD_ERRORS, ValidationError } from '../../../domain/errors';

const UNKNOWN_FIELD = 'is not a known field';
const RESERVED_FIELDS = ['__proto__', 'constructor', 'prototype'];

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
  // "constructor" and "prototype" as own fields would likewise send class-validator's metadata lookup astray.
  for (const reserved of RESERVED_FIELDS) if (Object.hasOwn(body, reserved)) throw ValidationError.single(reserved, UNKNOWN_FIELD);
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
