import { Actor } from '../../../domain/actor';
import { ModeSession, parseModeName } from '../../../domain/mode';
import { ScopeSet } from '../../../domain/scope';
import { Clock } from '../../ports/clock.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { found, parseFields, requireUuid } from '../guards';
import { sessionEvent } from '../scope-context-audit';

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
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: StartModeSessionInput): Promise<ModeSessionView> {
    const { agentRoleId, mode } = parseFields<{ agentRoleId: string; mode: string }>({
      agentRoleId: () => requireUuid(input.agentRoleId, 'agent_role_id'),
      mode: () => parseModeName(input.mode),
    });
    return this.work.run(async ({ roles, modes, sessions, audit }) => {
      const role = found(await roles.findById(agentRoleId), 'agent role', agentRoleId);
      const config = found(await modes.findByMode(mode), 'mode', mode);
      const now = this.clock.now();
      const session = await sessions.insert({ agentRoleId, modeToolConfigId: config.id, userId: input.actor.userId, startedAt: now });
      await audit.append([sessionEvent('mode_session.started', input.actor, session, now)]);
      return { session, effectiveScopes: role.platformScopes.merge(config.additionalScopes) };
    });
  }
}
