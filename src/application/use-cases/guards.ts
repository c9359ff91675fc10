import { Actor } from '../../domain/actor';
import { FieldError, ForbiddenError, NotFoundError, ValidationError } from '../../domain/errors';
import { isUuid } from '../../domain/uuid';

export function requireAdmin(actor: Actor, what: string): void {
  if (!actor.isAdmin) throw new ForbiddenError(`Only admins may ${what}`);
}

export function requireUuid(value: unknown, field = 'id'): string {
  if (!isUuid(value)) throw ValidationError.single(field, 'must be a UUID');
  return value.toLowerCase();
}

export function found<T>(value: T | null, resource: string, id: string): T {
  if (value === null) throw new NotFoundError(resource, id);
  return value;
}

/**
 * Runs each field parser and reports every failure at once, so a caller can
 * fix all of them in one go. Parsers for absent optional fields are skipped.
 */
export function parseFields<T extends object>(parsers: { [K in keyof T]?: () => T[K] }): T {
  const errors: FieldError[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, parse] of Object.entries(parsers)) {
    if (!parse) continue;
    try {
      out[key] = (parse as () => unknown)();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(...error.errors);
    }
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return out as T;
}
