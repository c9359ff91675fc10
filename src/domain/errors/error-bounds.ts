/**
 * How much of a failure the service describes. A 1 MiB body once produced a
 * 27 MB error (hardening issue, row 1): sources stop at these bounds, and the
 * edges cut again before anything is sent.
 */
export const MAX_FIELD_ERRORS = 20;
export const MAX_MESSAGE_LENGTH = 200;
/** The most of a caller's own value that a message quotes back. */
export const MAX_ECHO_LENGTH = 64;

/** A caller's text as a message may quote it. */
export function clipInput(text: string): string {
  return clip(text, MAX_ECHO_LENGTH);
}

/** A message, or the name of a field, as an error may carry it. */
export function clipMessage(text: string): string {
  return clip(text, MAX_MESSAGE_LENGTH);
}

/** `text` cut to at most `max` characters, ending in … when cut; a surrogate pair is never split. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/**
 * A caller's value as a message quotes it: scalars as JSON, strings clipped
 * to MAX_ECHO_LENGTH, arrays and objects by kind only (serialising them whole
 * is what made the huge errors, and a deeply nested one overflows the stack).
 */
export function echoInput(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(clipInput(value));
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  return String(value);
}
