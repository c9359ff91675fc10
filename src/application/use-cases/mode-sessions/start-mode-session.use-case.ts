import { Actor } from '../../../domain/actor';
import { ModeSession, parseModeName } from '../../../domain/mode';
import { ScopeSet } from '../../../domain/scope';
import { AgentRoleRepository } from '../../ports/agent-role-repository.port';
import { Clock } from '../../ports/clock.port';
import { ModeSessionRepository } from '../../ports/mode-session-repository.port';
import { ModeToolConfigRepository } from '../../ports/mode-tool-config-repository.port';
import { found, parseFields, requireUuid } from '../guards';

export interface StartModeSessionInput {
  actor: Actor;
  agentRoleId: string;
  mode: string;
}

export interface ModeSessionView {
  session: ModeSession;
  effectiveScopes: ScopeSet;
}

/** Starts a session of `mode` for a role, owned by the caller. */
export class StartModeSession {
  constructor(
    private readonly roles: AgentRoleRepository,
    private readonly modes: ModeToolConfigRepository,
    private readonly sessions: ModeSessionRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: StartModeSessionInput): Promise<ModeSessionView> {
    const { agentRoleId, mode } = parseFields<{ agentRoleId: string; mode: string }>({
      agentRoleId: () => requireUuid(input.agentRoleId, 'agent_role_id'),
      mode: () => parseModeName(input.mode),
    });
    const role = found(await this.roles.findById(agentRoleId), 'agent role', agentRoleId);
    const config = found(await this.modes.findByMode(mode), 'mode', mode);
    const session = await this.sessions.insert({
      agentRoleId,
      modeToolConfigId: config.id,
      userId: input.actor.userId,
      startedAt: this.clock.now(),
    });
    return { session, effectiveScopes: role.platformScopes.merge(config.additionalScopes) };
  }
}
