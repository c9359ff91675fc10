import { ValidationError } from './errors';

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const NUL_OR_SURROGATE = /[\u0000\ud800-\udfff]/;
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a string cannot be stored, or null. PostgreSQL refuses NUL in text and
 * jsonb, and an unpaired surrogate has no UTF-8 form: both used to end in a
 * 500 (hardening issue, row 6).
 */
export function textProblem(value: string): string | null {
  // One scan settles nearly every string: no NUL and no surrogate at all.
  if (!NUL_OR_SURROGATE.test(value)) return null;
  if (value.includes('\u0000')) return 'must not contain a NUL character (U+0000)';
  if (UNPAIRED_SURROGATE.test(value)) return 'must be well-formed Unicode (it holds an unpaired surrogate)';
  return null;
}

/**
 * A required label: a string, not blank, at most `max` characters, kept as
 * given. Text PostgreSQL cannot store never gets here: the edges refuse it in
 * every body (findBodyProblem).
 */
export function parseLabel(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string') throw ValidationError.single(field, 'is required and must be a string');
  if (value.trim().length === 0) throw ValidationError.single(field, 'must not be empty');
  if (value.length > max) throw ValidationError.single(field, `must be at most ${max} characters`);
  // A label is one line shown in lists, logs and terminals; control characters there only serve to spoof
  // or to inflate a list six-fold once JSON escapes them.
  if (CONTROL.test(value)) throw ValidationError.single(field, 'must not contain control characters (U+0000 to U+001F, U+007F to U+009F)');
  return value;
}

/** An optional free text: absent or null becomes '', otherwise a string of at most `max` characters (see parseLabel on storable text). */
export function parseOptionalText(value: unknown, field: string, max: number): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw ValidationError.single(field, 'must be a string');
  if (value.length > max) throw ValidationError.single(field, `must be at most ${max} characters`);
  return value;
}
