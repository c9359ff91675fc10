import { ValidationError } from '../../../../domain/errors';
import { FIELD_VALUE } from '../external/header-fields';

/** Far longer than API keys and personal access tokens; a header this long is still accepted by common servers. */
export const MAX_USER_SECRET = 4096;

/**
 * The secret a user stores for a user_secret server, checked as the header
 * value it becomes (`prefix + secret`): no line breaks, NUL or other control
 * characters, no space at either end. Errors never quote it.
 */
export function userSecretOf(value: unknown, prefix: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_USER_SECRET)
    throw ValidationError.single('secret', `is required: a string of 1 to ${MAX_USER_SECRET} characters`);
  if (!FIELD_VALUE.test(prefix + value))
    throw ValidationError.single(
      'secret',
      'is not usable in an HTTP header: no line breaks, NUL or other control characters, no space at either end (the value is not shown)',
    );
  return value;
}
