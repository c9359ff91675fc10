import { Clock } from '../../../application/ports/clock.port';
import { McpSessionRepository, NewMcpSession, SessionKey } from '../../../application/ports/mcp-session-repository.port';
import { McpSession, SessionIdlePolicy } from '../../../domain/mcp-session';
import { NotifiedCache } from '../hot-path/change-listener';
import { NotifiedLruCache } from '../hot-path/notified-lru-cache';
import { SESSION_ENDED_CHANNEL } from './postgres-session-bus';

/** Sessions kept per replica: a few hundred bytes each. */
export const SESSION_CACHE_ENTRIES = 10_000;

/**
 * The session table with each session read by its token kept in memory:
 * every request of a 2025 session reads it, and for most of them nothing in
 * it has changed. An end (or delete) on any replica is a NOTIFY from the
 * table's trigger that evicts it everywhere, so an ended session is 404 at
 * once on every replica; a change made here evicts at once.
 *
 * Only a fresh copy is served: one whose last-seen time is within the touch
 * interval. Another replica's touches are never heard, so an older copy
 * might call a live session idle; it is read again instead, and the same
 * reading that would touch the row does so (then evicts). The cache thus
 * never answers anything the table would not: it skips reads whose answer
 * ResumeMcpSession would use unchanged. Trusted only while the change
 * listener is connected (NotifiedLruCache); a job, which never listens,
 * reads through.
 */
export class CachedMcpSessionRepository implements McpSessionRepository {
  private readonly byToken: NotifiedLruCache<string, McpSession>;

  constructor(
    private readonly sessions: McpSessionRepository,
    private readonly idle: SessionIdlePolicy,
    private readonly clock: Clock,
    maxEntries = SESSION_CACHE_ENTRIES,
  ) {
    this.byToken = new NotifiedLruCache({ channel: SESSION_ENDED_CHANNEL, maxEntries, nameOf: (_token, session) => session.id });
  }

  /** What the change listener feeds: session ends and deletes. */
  get channels(): NotifiedCache[] {
    return [this.byToken];
  }

  async findByTokenHash(tokenHash: string): Promise<McpSession | null> {
    const cached = this.byToken.get(tokenHash);
    if (cached !== undefined && this.fresh(cached)) return cached;
    return this.byToken.load(tokenHash, () => this.sessions.findByTokenHash(tokenHash));
  }

  open(session: NewMcpSession, maxPerKey: number, idleCutoff: Date): Promise<McpSession> {
    // Sessions it ends for the limit are heard through the trigger's NOTIFY, like any end.
    return this.sessions.open(session, maxPerKey, idleCutoff);
  }

  touch(id: string, at: Date): Promise<void> {
    return this.evictingAfter(id, this.sessions.touch(id, at));
  }

  extend(id: string, expiresAt: Date): Promise<void> {
    return this.evictingAfter(id, this.sessions.extend(id, expiresAt));
  }

  end(id: string, at: Date): Promise<boolean> {
    return this.evictingAfter(id, this.sessions.end(id, at));
  }

  keysWithLiveSessions(filter: { keyId: string } | { userId: string }, idleCutoff: Date): Promise<SessionKey[]> {
    return this.sessions.keysWithLiveSessions(filter, idleCutoff);
  }

  recordToolsDigest(keyId: string, digest: string, idleCutoff: Date): Promise<string[]> {
    return this.sessions.recordToolsDigest(keyId, digest, idleCutoff);
  }

  /** Live and not yet due for a touch: what the table would say too, whatever other replicas did since. */
  private fresh(session: McpSession): boolean {
    const now = this.clock.now();
    return this.idle.isLiveAt(session, now) && !this.idle.needsTouch(session, now);
  }

  /** Evicts once the change is done, which also stops a read that began before it from keeping what it read. */
  private async evictingAfter<T>(id: string, change: Promise<T>): Promise<T> {
    try {
      return await change;
    } finally {
      this.byToken.evict(id);
    }
  }
}
