import { ValidationError } from '../../../../domain/errors';

const PREFIX = 'offset:';
const OFFSET = /^[1-9]\d{0,6}$/;
/** Far longer than any cursor keygate makes; anything longer is refused unread. */
const MAX_CURSOR_LENGTH = 32;

/** Opaque to callers: base64url of how many servers the pages before it showed. */
export function encodePageCursor(offset: number): string {
  return Buffer.from(`${PREFIX}${offset}`, 'utf8').toString('base64url');
}

/** The offset a cursor stands for; only the exact text encodePageCursor makes is accepted, anything else is a 400. */
export function decodePageCursor(value: unknown): number {
  const invalid = () => ValidationError.single('cursor', 'is not a cursor from a previous page');
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(value))
    throw invalid();
  const text = Buffer.from(value, 'base64url').toString('utf8');
  const digits = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : '';
  if (!OFFSET.test(digits) || encodePageCursor(Number(digits)) !== value) throw invalid();
  return Number(digits);
}

/** A page size from a query string or a caller: an integer from 1 to `max`. */
export function parsePageLimit(value: unknown, max: number): number {
  if (Array.isArray(value)) throw ValidationError.single('limit', 'must be given once');
  const limit = typeof value === 'string' && /^\d{1,7}$/.test(value) ? Number(value) : value;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > max) {
    throw ValidationError.single('limit', `must be an integer from 1 to ${max}`);
  }
  return limit;
}
