import { authOf } from '../external/server-auth';

/**
 * Whether users' connections to a server survive a change of its record: a
 * secret was given for one origin (scheme, host, port) and one way of
 * authenticating, so a new origin or auth type, or another header for a
 * user_secret, forgets them, as a moved url drops the record's header values.
 */
export function keepsConnections(before: Record<string, unknown>, after: Record<string, unknown>): boolean {
  const [was, is] = [authOf(before), authOf(after)];
  if (was.type !== is.type) return false;
  if (was.type === 'user_secret' && is.type === 'user_secret' && was.header.toLowerCase() !== is.header.toLowerCase()) return false;
  return originOf(before.url) !== null && originOf(before.url) === originOf(after.url);
}

function originOf(value: unknown): string | null {
  return typeof value === 'string' && URL.canParse(value) ? new URL(value).origin : null;
}
