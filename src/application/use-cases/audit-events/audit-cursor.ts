import { ValidationError } from '../../../domain/errors';

const PREFIX = 'seq:';
const SEQ = /^[1-9]\d{0,15}$/;
/** Far longer than any cursor keygate makes; anything longer is refused unread. */
const MAX_CURSOR_LENGTH = 32;

/** Opaque to callers: base64url of the last seq on the page, which the next page starts below. */
export function encodeCursor(seq: number): string {
  return Buffer.from(`${PREFIX}${seq}`, 'utf8').toString('base64url');
}

/**
 * The seq a cursor stands for. Only the exact text encodeCursor makes is
 * accepted (no padding, no other alphabet, no leading zeros), so a cursor
 * either came from keygate or is a 400.
 */
export function decodeCursor(value: unknown, field = 'cursor'): number {
  const invalid = () => ValidationError.single(field, 'is not a cursor from a previous page');
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(value))
    throw invalid();
  const text = Buffer.from(value, 'base64url').toString('utf8');
  const digits = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : '';
  if (!SEQ.test(digits)) throw invalid();
  const seq = Number(digits);
  if (!Number.isSafeInteger(seq) || encodeCursor(seq) !== value) throw invalid();
  return seq;
}
