/**
 * The id handed to clients: 32 random bytes as unpadded base64url, 43
 * characters. Anything else cannot name a session, and is answered like an
 * unknown id without a look-up.
 */
const SESSION_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function isWellFormedSessionToken(value: unknown): value is string {
  return typeof value === 'string' && SESSION_TOKEN.test(value);
}

/**
 * What a session's stored hash is taken over: the token alone on /mcp, the
 * token and the endpoint's path on any other (`servers/<name>`). A session is
 * thereby bound to the endpoint that opened it: its id names nothing anywhere
 * else, so another endpoint answers it like an unknown id, with no column to
 * compare and no look-up that could forget to.
 */
export function sessionTokenKey(token: string, endpoint: string | undefined): string {
  return endpoint === undefined ? token : `${token} ${endpoint}`;
}
