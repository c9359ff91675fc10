import { McpSession, SessionIdlePolicy, sessionTokenKey } from '../../../../domain/mcp-session';
import { ValidationError } from '../../../../domain/errors';
import { ScopeSet } from '../../../../domain/scope';
import { Clock } from '../../../ports/clock.port';
import { KeyHasher } from '../../../ports/key-hasher.port';
import { McpSessionRepository } from '../../../ports/mcp-session-repository.port';
import { SessionTokenGenerator } from '../../../ports/session-token.port';
import { ToolsDigest } from './tools-digest';

/** Largest `capabilities` or `clientInfo` kept, as JSON text (the table checks it too). */
export const MAX_CLIENT_FIELD_CHARS = 16_384;

export interface SessionLimits {
  idle: SessionIdlePolicy;
  /** Live sessions one key may hold; opening one more ends its least recently seen. */
  maxPerKey: number;
}

export interface OpenMcpSessionInput {
  keyId: string;
  userId: string;
  scopes: ScopeSet;
  /** The version initialize settled on. */
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo: Record<string, unknown>;
  /** The endpoint it is opened on, when not /mcp (`servers/<name>`): the session exists there alone. */
  endpoint?: string;
  /** Opened with an OAuth access token: the token's expiry, past which the session is over unless a fresher token used it. */
  expiresAt?: Date;
}

export interface OpenMcpSessionOutput {
  /** For the client's `Mcp-Session-Id`, shown once and never stored. */
  token: string;
  session: McpSession;
}

/**
 * Opens a session at initialize. At the key's limit the least recently seen
 * session ends rather than initialize failing: clients rarely send DELETE
 * (crashed, or never told to), and a refusal would lock the key out for a
 * whole idle period, while an eviction only ever hurts the key's own sessions.
 */
export class OpenMcpSession {
  constructor(
    private readonly sessions: McpSessionRepository,
    private readonly tokens: SessionTokenGenerator,
    private readonly hasher: KeyHasher,
    private readonly digest: ToolsDigest,
    private readonly clock: Clock,
    private readonly limits: SessionLimits,
  ) {}

  async execute(input: OpenMcpSessionInput): Promise<OpenMcpSessionOutput> {
    const clientCapabilities = bounded(input.clientCapabilities, 'capabilities');
    const clientInfo = bounded(input.clientInfo, 'clientInfo');
    const toolsDigest = await this.digest.of(input.userId, input.scopes);
    const token = this.tokens.generate();
    const now = this.clock.now();
    const session = await this.sessions.open(
      {
        tokenHash: this.hasher.hash(sessionTokenKey(token, input.endpoint)),
        keyId: input.keyId,
        userId: input.userId,
        protocolVersion: input.protocolVersion,
        clientCapabilities,
        clientInfo,
        toolsDigest,
        now,
        expiresAt: input.expiresAt ?? null,
      },
      this.limits.maxPerKey,
      this.limits.idle.idleCutoff(now),
    );
    return { token, session };
  }
}

function bounded(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw ValidationError.single(field, 'must be an object');
  // Text PostgreSQL's jsonb cannot take was refused with the rest of initialize's params (findBodyProblem).
  if (JSON.stringify(value).length > MAX_CLIENT_FIELD_CHARS)
    throw ValidationError.single(field, `must be at most ${MAX_CLIENT_FIELD_CHARS} characters as JSON`);
  return value as Record<string, unknown>;
}
