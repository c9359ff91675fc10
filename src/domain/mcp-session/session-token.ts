/**
 * The id handed to clients: 32 random bytes as unpadded base64url, 43
 * characters. Anything else cannot name a session, and is answered like an
 * unknown id without a look-up.
 */
const SESSION_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function isWellFormedSessionToken(value: unknown): value is string {
  return typeof value === 'string' && SESSION_TOKEN.test(value);
}
