import { McpSession } from '../../../../domain/mcp-session';
import { Clock } from '../../../ports/clock.port';
import { McpSessionRepository } from '../../../ports/mcp-session-repository.port';

export interface EndMcpSessionInput {
  /** A session ResumeMcpSession found for the request's key. */
  session: McpSession;
}

/** DELETE /mcp: ends the session on every replica (its stream closes wherever it is). */
export class EndMcpSession {
  constructor(
    private readonly sessions: McpSessionRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: EndMcpSessionInput): Promise<boolean> {
    return this.sessions.end(input.session.id, this.clock.now());
  }
}
