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
 * Pending authorizations, kept where every replica sees them (the callback
 * may reach any), found by their `state` only: the browser comes back from
 * the authorization server without the user's token, and the state binds
 * user and server. Each is taken once.
 */
export interface ConnectionAttemptStore {
  save(attempt: ConnectionAttempt): Promise<void>;
  /** Removes and returns the attempt of `state` when it has not expired at `now`; null for an unknown, used or expired state. */
  take(state: string, now: Date): Promise<ConnectionAttempt | null>;
}
