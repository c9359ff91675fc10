import { PendingAuthorization } from './upstream-authorization.port';

/** One OAuth authorization a user started for a server, waiting for its callback. */
export interface ConnectionAttempt {
  userId: string;
  serverId: string;
  /** What begin() made: the state, the PKCE verifier and the client (secret parts sealed at rest). */
  pending: PendingAuthorization;
  expiresAt: Date;
}

/**
 * Pending authorizations, kept where every replica sees them (the browser may
 * come back to any), found by their `state` and the user who started them:
 * the console completes an attempt as its signed-in user, so an
 * authorization URL someone else started never lands on their connection.
 * Each is taken once.
 */
export interface ConnectionAttemptStore {
  save(attempt: ConnectionAttempt): Promise<void>;
  /**
   * Removes and returns the attempt of `state` when `userId` started it and it has not expired at `now`; null for
   * an unknown, used or expired state, or another user's (which stays for its own user).
   */
  take(state: string, userId: string, now: Date): Promise<ConnectionAttempt | null>;
}
