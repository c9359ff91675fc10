import { parseLabel } from '../text-field';

export const MAX_KEY_NAME_LENGTH = 255;

/** A key's label: a non-blank string of at most 255 characters, kept as given. */
export function parseKeyName(value: unknown): string {
  return parseLabel(value, 'name', MAX_KEY_NAME_LENGTH);
}
