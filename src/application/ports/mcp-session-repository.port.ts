import { McpSession } from '../../domain/mcp-session';
import { ScopeSet } from '../../domain/scope';

export interface NewMcpSession {
  /** SHA-256 of the id handed to the client; the id itself is never stored. */
  tokenHash: string;
  keyId: string;
  userId: string;
  protocolVersion: string;
  /** The client's `capabilities` and `clientInfo` from initialize, already bounded. */
  clientCapabilities: Record<string, unknown>;
  clientInfo: Record<string, unknown>;
  /** Digest of the tools the session sees at its start; list_changed is sent when it moves. */
  toolsDigest: string;
  now: Date;
  /** The access token's expiry, for a session opened with one; null or absent for a key's. */
  expiresAt?: Date | null;
}

/** A key some live session belongs to, with what decides the tools it sees. */
export interface SessionKey {
  keyId: string;
  userId: string;
  scopes: ScopeSet;
}

/** MCP sessions, shared by every replica (the state that lets any replica serve any session). */
export interface McpSessionRepository {
  /**
   * Stores a new session. When the key already has `maxPerKey` live sessions
   * (seen after `idleCutoff`, not ended), its least recently seen ones are
   * ended first, in the same transaction.
   */
  open(session: NewMcpSession, maxPerKey: number, idleCutoff: Date): Promise<McpSession>;
  findByTokenHash(tokenHash: string): Promise<McpSession | null>;
  touch(id: string, at: Date): Promise<void>;
  /** Moves a token session's expiry later (never earlier): a fresher token of the same subject used it. */
  extend(id: string, expiresAt: Date): Promise<void>;
  /** False when it had already ended. */
  end(id: string, at: Date): Promise<boolean>;
  /** Keys (not revoked) with at least one live session: one key, or every key of an owner. */
  keysWithLiveSessions(filter: { keyId: string } | { userId: string }, idleCutoff: Date): Promise<SessionKey[]>;
  /**
   * Sets `digest` on the key's live sessions whose stored digest differs and
   * returns their ids: the sessions whose visible tools changed. Conditional,
   * so replicas hearing the same change announce it once between them.
   */
  recordToolsDigest(keyId: string, digest: string, idleCutoff: Date): Promise<string[]>;
}
