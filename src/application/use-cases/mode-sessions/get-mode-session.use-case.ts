import { Actor } from '../../../domain/actor';
import { ModeSessionRepository } from '../../ports/mode-session-repository.port';
import { requireUuid } from '../guards';
import { ResolveAgentScopes } from '../resolve-agent-scopes/resolve-agent-scopes.use-case';
import { activeSessionOf } from './active-session';
import { ModeSessionView } from './start-mode-session.use-case';

export interface GetModeSessionInput {
  actor: Actor;
  id: string;
}

/** An active session of the caller (any, for admins) with its current effective scopes. */
export class GetModeSession {
  constructor(
    private readonly sessions: ModeSessionRepository,
    private readonly resolve: ResolveAgentScopes,
  ) {}

  async execute(input: GetModeSessionInput): Promise<ModeSessionView> {
    const id = requireUuid(input.id);
    const session = await activeSessionOf(this.sessions, input.actor, id);
    const { effectiveScopes } = await this.resolve.execute({
      actor: input.actor,
      agentRoleId: session.agentRoleId,
      modeSessionId: id,
    });
    return { session, effectiveScopes };
  }
}
