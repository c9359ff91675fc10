import { ValidationError } from './errors';

/** A required label: a string, not blank, at most `max` characters, kept as given. */
export function parseLabel(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string') throw ValidationError.single(field, 'is required and must be a string');
  if (value.trim().length === 0) throw ValidationError.single(field, 'must not be empty');
  if (value.length > max) throw ValidationError.single(field, `must be at most ${max} characters`);
  return value;
}

/** An optional free text: absent or null becomes '', otherwise a string of at most `max` characters. */
export function parseOptionalText(value: unknown, field: string, max: number): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw ValidationError.single(field, 'must be a string');
  if (value.length > max) throw ValidationError.single(field, `must be at most ${max} characters`);
  return value;
}
