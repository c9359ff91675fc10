import { ValidationError as FieldFailure, validateSync } from 'class-validator';
import { clipInput, FieldError, MAX_FIELD_ERRORS, ValidationError } from '../../../domain/errors';
import { nestedTypeOf } from './wire-decorators';

const UNKNOWN_FIELD = 'is not a known field';
const RESERVED_FIELDS = ['__proto__', 'constructor', 'prototype'];

/**
 * Checks a parsed JSON body against its DTO class: a non-object body, an
 * unknown field (at any depth the DTO describes) or a value of the wrong wire
 * shape is a 400 naming each field (`rate_limit.limit`), with the message the
 * DTO's decorator gives. Domain rules (a name not blank, a scope in the
 * catalog, an expiry in the future) stay with the use-cases.
 */
export function allowedFields<T extends object>(Dto: new () => T, body: unknown): T {
  if (!isObject(body)) throw ValidationError.single('body', 'must be a JSON object');
  const dto = instantiate(Dto, body, '');
  const failures = validateSync(dto, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true, stopAtFirstError: true });
  if (failures.length > 0) throw new ValidationError(fieldErrors(failures, '').slice(0, MAX_FIELD_ERRORS));
  return dto;
}

/**
 * The DTO with the body's own fields, and a nested DTO for each object its
 * `@Nested` names. Fields are defined, not assigned: a "__proto__" field would
 * otherwise replace the prototype (a 500 for null), and "constructor" or
 * "prototype" would send class-validator's metadata lookup astray, so all
 * three are refused like any unknown field.
 */
function instantiate<T extends object>(Dto: new () => T, body: object, path: string): T {
  for (const reserved of RESERVED_FIELDS) if (Object.hasOwn(body, reserved)) throw ValidationError.single(path + reserved, UNKNOWN_FIELD);
  const dto = new Dto();
  for (const [key, value] of Object.entries(body)) {
    const nested = nestedTypeOf(Dto, key);
    const field: unknown = nested && isObject(value) ? instantiate(nested, value, `${path}${key}.`) : value;
    Object.defineProperty(dto, key, { value: field, enumerable: true, writable: true, configurable: true });
  }
  return dto;
}

function fieldErrors(failures: FieldFailure[], path: string): FieldError[] {
  return failures.flatMap((failure) => {
    const field = path + failure.property;
    const constraints = failure.constraints ?? {};
    if (Object.keys(constraints).length === 0) return fieldErrors(failure.children ?? [], `${field}.`);
    // class-validator's own text for an unknown field repeats the name in full.
    const message = 'whitelistValidation' in constraints ? UNKNOWN_FIELD : Object.values(constraints)[0];
    return [{ field: clipInput(field), message }];
  });
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
