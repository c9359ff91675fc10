import { ValidationError } from '../../../../domain/errors';
import { isObject } from '../built-in/tool-command';

/** Longest URI read or completed: a real one is far shorter, and a longer one is not sent upstream. */
export const MAX_URI_CHARS = 8192;

/** A required string param, non-empty, at most `max` characters. */
export function requireText(value: unknown, field: string, max = MAX_URI_CHARS): string {
  if (typeof value !== 'string' || value === '') throw ValidationError.single(field, 'must be a non-empty string');
  if (value.length > max) throw ValidationError.single(field, `must be at most ${max} characters`);
  return value;
}

/** An optional object of string values (prompt arguments), as MCP defines them. */
export function optionalStrings(value: unknown, field: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw ValidationError.single(field, 'must be an object of string values');
  for (const [name, item] of Object.entries(value)) {
    if (typeof item !== 'string') throw ValidationError.single(`${field}.${name}`, 'must be a string');
  }
  return value as Record<string, string>;
}
