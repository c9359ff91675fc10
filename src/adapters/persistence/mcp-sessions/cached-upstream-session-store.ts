import {
  ClientSessionView,
  HeldUpstreamSession,
  TakenUpstreamSession,
  UpstreamSessionStore,
} from '../../../application/ports/upstream-session-store.port';
import { NotifiedCache } from '../hot-path/change-listener';
import { NotifiedLruCache } from '../hot-path/notified-lru-cache';
import { SESSION_ENDED_CHANNEL } from './postgres-session-bus';
import { UPSTREAM_SESSIONS_CHANNEL } from './postgres-upstream-session-store';

/** Client session views kept per replica: a few hundred bytes each. */
export const UPSTREAM_VIEW_CACHE_ENTRIES = 10_000;

/**
 * The upstream session store with each client session's view of a server
 * (find) kept in memory: every upstream call of a 2025 session reads it, and
 * it changes only when a held session is saved, forgotten or taken, a logging
 * level is set, or the client session ends. Each such change, on any replica,
 * is a NOTIFY (UPSTREAM_SESSIONS_CHANNEL from the changing statement,
 * SESSION_ENDED_CHANNEL from the sessions' trigger) that evicts the client
 * session's views everywhere, as a revoked key leaves the key cache; the
 * change made here evicts at once. Trusted only while the change listener is
 * connected (NotifiedLruCache); a job, which never listens, reads through.
 */
export class CachedUpstreamSessionStore implements UpstreamSessionStore {
  private readonly views: NotifiedLruCache<string, ClientSessionView>;

  constructor(
    private readonly store: UpstreamSessionStore,
    maxEntries = UPSTREAM_VIEW_CACHE_ENTRIES,
  ) {
    // Named by client session: one notification drops its views of every server.
    this.views = new NotifiedLruCache({ channel: UPSTREAM_SESSIONS_CHANNEL, maxEntries, nameOf: (key) => key.slice(0, key.indexOf(' ')) });
  }

  /** What the change listener feeds: this store's channel, and session ends. */
  get channels(): NotifiedCache[] {
    const views = this.views;
    return [views, { channel: SESSION_ENDED_CHANNEL, evict: (id) => views.evict(id), enable: () => undefined, disable: () => undefined }];
  }

  async find(clientSessionId: string, serverId: string): Promise<ClientSessionView | null> {
    const key = `${clientSessionId} ${serverId}`;
    return this.views.get(key) ?? this.views.load(key, () => this.store.find(clientSessionId, serverId));
  }

  async save(clientSessionId: string, serverId: string, userId: string, held: HeldUpstreamSession): Promise<boolean> {
    return this.evictingAfter(clientSessionId, this.store.save(clientSessionId, serverId, userId, held));
  }

  async forget(clientSessionId: string, serverId: string, upstreamSessionId: string): Promise<void> {
    return this.evictingAfter(clientSessionId, this.store.forget(clientSessionId, serverId, upstreamSessionId));
  }

  async setHeldLogLevel(clientSessionId: string, serverId: string, level: string): Promise<void> {
    return this.evictingAfter(clientSessionId, this.store.setHeldLogLevel(clientSessionId, serverId, level));
  }

  async setClientLogLevel(clientSessionId: string, level: string): Promise<boolean> {
    return this.evictingAfter(clientSessionId, this.store.setClientLogLevel(clientSessionId, level));
  }

  async take(clientSessionId: string): Promise<TakenUpstreamSession[]> {
    return this.evictingAfter(clientSessionId, this.store.take(clientSessionId));
  }

  /** Evicts once the change is done, which also stops a find that read before it from keeping what it read. */
  private async evictingAfter<T>(clientSessionId: string, change: Promise<T>): Promise<T> {
    try {
      return await change;
    } finally {
      this.views.evict(clientSessionId);
    }
  }
}
