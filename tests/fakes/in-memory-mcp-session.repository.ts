import { randomUUID } from 'node:crypto';
import { McpSessionRepository, NewMcpSession, SessionKey } from '../../src/application/ports/mcp-session-repository.port';
import { McpSession } from '../../src/domain/mcp-session';
import { ScopeSet } from '../../src/domain/scope';

interface Stored extends McpSession {
  tokenHash: string;
  toolsDigest: string;
}

/** Sessions in memory; the keys' scopes are registered with `key()` since there is no api_keys table to join. */
export class InMemoryMcpSessionRepository implements McpSessionRepository {
  readonly rows: Stored[] = [];
  readonly touches: { id: string; at: Date }[] = [];
  private readonly keys = new Map<string, SessionKey & { revoked: boolean }>();

  key(keyId: string, userId: string, scopes: ScopeSet, revoked = false): void {
    this.keys.set(keyId, { keyId, userId, scopes, revoked });
  }

  async open(session: NewMcpSession, maxPerKey: number, idleCutoff: Date): Promise<McpSession> {
    const live = this.live(session.keyId, idleCutoff).sort((x, y) => y.lastSeenAt.getTime() - x.lastSeenAt.getTime());
    for (const old of live.slice(maxPerKey - 1)) old.endedAt = session.now;
    const row: Stored = {
      id: randomUUID(),
      keyId: session.keyId,
      userId: session.userId,
      protocolVersion: session.protocolVersion,
      createdAt: session.now,
      lastSeenAt: session.now,
      endedAt: null,
      expiresAt: session.expiresAt ?? null,
      urlElicitation: typeof (session.clientCapabilities.elicitation as { url?: unknown } | undefined)?.url === 'object',
      tokenHash: session.tokenHash,
      toolsDigest: session.toolsDigest,
    };
    this.rows.push(row);
    return { ...row };
  }

  async findByTokenHash(tokenHash: string): Promise<McpSession | null> {
    const row = this.rows.find((r) => r.tokenHash === tokenHash);
    return row ? { ...row } : null;
  }

  async touch(id: string, at: Date): Promise<void> {
    this.touches.push({ id, at });
    const row = this.rows.find((r) => r.id === id);
    if (row && row.endedAt === null) row.lastSeenAt = at;
  }

  async extend(id: string, expiresAt: Date): Promise<void> {
    const row = this.rows.find((r) => r.id === id);
    if (row && row.endedAt === null && row.expiresAt != null && row.expiresAt < expiresAt) row.expiresAt = expiresAt;
  }

  async end(id: string, at: Date): Promise<boolean> {
    const row = this.rows.find((r) => r.id === id);
    if (!row || row.endedAt !== null) return false;
    row.endedAt = at;
    return true;
  }

  async keysWithLiveSessions(filter: { keyId: string } | { userId: string }, idleCutoff: Date): Promise<SessionKey[]> {
    return [...this.keys.values()]
      .filter((k) => !k.revoked && ('keyId' in filter ? k.keyId === filter.keyId : k.userId === filter.userId))
      .filter((k) => this.live(k.keyId, idleCutoff).length > 0)
      .map(({ keyId, userId, scopes }) => ({ keyId, userId, scopes }));
  }

  async recordToolsDigest(keyId: string, digest: string, idleCutoff: Date): Promise<string[]> {
    const changed = this.live(keyId, idleCutoff).filter((r) => r.toolsDigest !== digest);
    for (const row of changed) row.toolsDigest = digest;
    return changed.map((r) => r.id);
  }

  private live(keyId: string, idleCutoff: Date): Stored[] {
    return this.rows.filter((r) => r.keyId === keyId && r.endedAt === null && r.lastSeenAt > idleCutoff);
  }
}
