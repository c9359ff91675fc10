import { McpSessionRepository, NewMcpSession, SessionKey } from '../../../application/ports/mcp-session-repository.port';
import { McpSession } from '../../../domain/mcp-session';
import { NotifiedCache } from '../hot-path/change-listener';
import { NotifiedLruCache } from '../hot-path/notified-lru-cache';
import { SESSION_ENDED_CHANNEL } from './postgres-session-bus';

/** Sessions kept per replica: a few hundred bytes each. */
export const SESSION_CACHE_ENTRIES = 10_000;

/**
 * The session repository with sessions found by token kept in memory: every
 * request in a session looks its session up. A kept session is served only
 * while its last-seen time is within `freshMs` (the idle policy's touch
 * interval), when the idle check cannot end it and no touch is due; past
 * that, or for a token session (whose expiry another replica may extend),
 * PostgreSQL is read. An end anywhere is a NOTIFY (the sessions' trigger)
 * that drops it on every replica, and a change made here drops it at once.
 * Trusted only while the change listener is connected (NotifiedLruCache).
 */
export class CachedMcpSessionRepository implements McpSessionRepository {
  private readonly sessions: NotifiedLruCache<string, McpSession>;

  constructor(
    private readonly inner: McpSessionRepository,
    private readonly freshMs: number,
    private readonly now: () => number = Date.now,
    maxEntries = SESSION_CACHE_ENTRIES,
  ) {
    this.sessions = new NotifiedLruCache({
      channel: SESSION_ENDED_CHANNEL,
      maxEntries,
      nameOf: (_hash, session) => session.id,
      keep: (session) => session.endedAt === null && session.expiresAt == null,
    });
  }

  get channels(): NotifiedCache[] {
    return [this.sessions];
  }

  async findByTokenHash(tokenHash: string): Promise<McpSession | null> {
    const kept = this.sessions.get(tokenHash);
    if (kept !== undefined && this.now() - kept.lastSeenAt.getTime() < this.freshMs) return kept;
    return this.sessions.load(tokenHash, () => this.inner.findByTokenHash(tokenHash));
  }

  open(session: NewMcpSession, maxPerKey: number, idleCutoff: Date): Promise<McpSession> {
    return this.inner.open(session, maxPerKey, idleCutoff);
  }

  touch(id: string, at: Date): Promise<void> {
    return this.evictingAfter(id, this.inner.touch(id, at));
  }

  extend(id: string, expiresAt: Date): Promise<void> {
    return this.evictingAfter(id, this.inner.extend(id, expiresAt));
  }

  end(id: string, at: Date): Promise<boolean> {
    return this.evictingAfter(id, this.inner.end(id, at));
  }

  keysWithLiveSessions(filter: { keyId: string } | { userId: string }, idleCutoff: Date): Promise<SessionKey[]> {
    return this.inner.keysWithLiveSessions(filter, idleCutoff);
  }

  recordToolsDigest(keyId: string, digest: string, idleCutoff: Date): Promise<string[]> {
    return this.inner.recordToolsDigest(keyId, digest, idleCutoff);
  }

  private async evictingAfter<T>(id: string, change: Promise<T>): Promise<T> {
    try {
      return await change;
    } finally {
      this.sessions.evict(id);
    }
  }
}
