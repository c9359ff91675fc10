/** An MCP session on /mcp, as every replica sees it (the client's id itself is never kept, only its hash). */
export interface McpSession {
  /** Internal name (a UUID): NOTIFY payloads, the event log and the bus use it, never the client's id. */
  id: string;
  keyId: string;
  userId: string;
  protocolVersion: string;
  createdAt: Date;
  lastSeenAt: Date;
  endedAt: Date | null;
  /** A session opened with an OAuth access token ends when the latest token that used it expires; null for a key's (null or absent). */
  expiresAt?: Date | null;
  /** Whether the client declared URL-mode elicitation at initialize (absent: it did not). */
  urlElicitation?: boolean;
}

/**
 * How long a session lives without requests, and how often its last-seen
 * time is written: at most once per touch interval, so a busy session costs
 * one write per interval, not one per request.
 */
export class SessionIdlePolicy {
  readonly idleMs: number;
  readonly touchMs: number;

  constructor(idleSeconds: number) {
    this.idleMs = idleSeconds * 1000;
    this.touchMs = Math.max(1000, Math.floor(this.idleMs / 10));
  }

  /**
   * The stored last-seen time lags the true one by less than the touch
   * interval, so a session is ended only after idle + touch of stored
   * silence: never early, at most one touch interval late.
   */
  isLiveAt(session: McpSession, now: Date): boolean {
    if (session.expiresAt != null && session.expiresAt.getTime() <= now.getTime()) return false;
    return session.endedAt === null && now.getTime() - session.lastSeenAt.getTime() < this.idleMs + this.touchMs;
  }

  needsTouch(session: McpSession, now: Date): boolean {
    return now.getTime() - session.lastSeenAt.getTime() >= this.touchMs;
  }

  /** The last-seen time before which a session has ended by idleness. */
  idleCutoff(now: Date): Date {
    return new Date(now.getTime() - this.idleMs - this.touchMs);
  }
}
