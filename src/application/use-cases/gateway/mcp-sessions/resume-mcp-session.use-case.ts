import { isWellFormedSessionToken, McpSession, SessionIdlePolicy, sessionTokenKey } from '../../../../domain/mcp-session';
import { Clock } from '../../../ports/clock.port';
import { KeyHasher } from '../../../ports/key-hasher.port';
import { McpSessionRepository } from '../../../ports/mcp-session-repository.port';

export interface ResumeMcpSessionInput {
  /** The `Mcp-Session-Id` the request carried, unchecked. */
  token: string;
  /** The key that made the request (already validated). */
  keyId: string;
  /** The endpoint the request came to, when not /mcp (`servers/<name>`); a session opened elsewhere is not found. */
  endpoint?: string;
  /** The expiry of the OAuth access token the request came with, if it did: a later one extends a token session. */
  expiresAt?: Date;
}

/**
 * The session a request belongs to, or null: a malformed id, an unknown one,
 * another key's, another endpoint's, an ended or an idle one all look alike, so an answer tells a
 * caller nothing about sessions that are not theirs. A session found idle is
 * ended on the spot, which closes its stream wherever it is.
 */
export class ResumeMcpSession {
  constructor(
    private readonly sessions: McpSessionRepository,
    private readonly hasher: KeyHasher,
    private readonly clock: Clock,
    private readonly idle: SessionIdlePolicy,
  ) {}

  async execute(input: ResumeMcpSessionInput): Promise<McpSession | null> {
    if (!isWellFormedSessionToken(input.token)) return null;
    const session = await this.sessions.findByTokenHash(this.hasher.hash(sessionTokenKey(input.token, input.endpoint)));
    if (!session || session.keyId !== input.keyId) return null;
    const now = this.clock.now();
    if (!this.idle.isLiveAt(session, now)) {
      if (session.endedAt === null) await this.sessions.end(session.id, now);
      return null;
    }
    if (this.idle.needsTouch(session, now)) await this.sessions.touch(session.id, now);
    // A client refreshes its token before the old one expires; the session lives on with the fresher token.
    if (session.expiresAt != null && input.expiresAt !== undefined && input.expiresAt > session.expiresAt) {
      await this.sessions.extend(session.id, input.expiresAt);
      return { ...session, expiresAt: input.expiresAt };
    }
    return session;
  }
}
