import { ValidationError } from '../errors';

export const MAX_KEY_NAME_LENGTH = 255;

/** A key's label: a non-blank string of at most 255 characters, kept as given. */
export function parseKeyName(value: unknown): string {
  if (typeof value !== 'string') throw ValidationError.single('name', 'is required and must be a string');
  if (value.trim().length === 0) throw ValidationError.single('name', 'must not be empty');
  if (value.length > MAX_KEY_NAME_LENGTH) {
    throw ValidationError.single('name', `must be at most ${MAX_KEY_NAME_LENGTH} characters`);
  }
  return value;
}
