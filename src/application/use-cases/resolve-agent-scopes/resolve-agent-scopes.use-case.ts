import { Actor } from '../../../domain/actor';
import { ValidationError } from '../../../domain/errors';
import { ScopeSet } from '../../../domain/scope';
import { AgentRoleRepository } from '../../ports/agent-role-repository.port';
import { ModeSessionRepository } from '../../ports/mode-session-repository.port';
import { ModeToolConfigRepository } from '../../ports/mode-tool-config-repository.port';
import { found, requireUuid } from '../guards';
import { activeSessionOf } from '../mode-sessions/active-session';

export interface ResolveAgentScopesInput {
  actor: Actor;
  agentRoleId: string;
  modeSessionId?: string | null;
}

export interface ResolvedAgentScopes {
  agentRoleId: string;
  modeSessionId: string | null;
  effectiveScopes: ScopeSet;
}

/**
 * Spec 4.6: a role's platform_scopes, merged with its active mode session's
 * additional_scopes. Roles and modes are read now, so edits apply at once.
 */
export class ResolveAgentScopes {
  constructor(
    private readonly roles: AgentRoleRepository,
    private readonly modes: ModeToolConfigRepository,
    private readonly sessions: ModeSessionRepository,
  ) {}

  async execute(input: ResolveAgentScopesInput): Promise<ResolvedAgentScopes> {
    const agentRoleId = requireUuid(input.agentRoleId, 'agent_role_id');
    const sessionId = input.modeSessionId == null ? null : requireUuid(input.modeSessionId, 'mode_session_id');
    const role = found(await this.roles.findById(agentRoleId), 'agent role', agentRoleId);
    if (sessionId === null) return { agentRoleId, modeSessionId: null, effectiveScopes: role.platformScopes };

    const session = await activeSessionOf(this.sessions, input.actor, sessionId);
    if (session.agentRoleId !== agentRoleId) {
      throw ValidationError.single('mode_session_id', 'belongs to another agent role');
    }
    const mode = found(await this.modes.findById(session.modeToolConfigId), 'mode tool config', session.modeToolConfigId);
    return { agentRoleId, modeSessionId: sessionId, effectiveScopes: role.platformScopes.merge(mode.additionalScopes) };
  }
}
