import { validateSync } from 'class-validator';
import { ValidationError } from '../../../domain/errors';

/**
 * Checks a parsed JSON body against a DTO class whose decorated properties are
 * the allowed fields: a non-object body or an unknown field is a 400.
 */
export function allowedFields<T extends object>(Dto: new () => T, body: unknown): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ValidationError.single('body', 'must be a JSON object');
  }
  const dto = Object.assign(new Dto(), body);
  const errors = validateSync(dto, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  if (errors.length > 0) {
    throw new ValidationError(
      errors.map((e) => ({ field: e.property, message: Object.values(e.constraints ?? {}).join('; ') || 'is not allowed' })),
    );
  }
  return dto;
}
