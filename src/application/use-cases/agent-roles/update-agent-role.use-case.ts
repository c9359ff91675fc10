import { Actor } from '../../../domain/actor';
import { AgentRole, parseDescription, parsePlatformScopes, parseRoleName } from '../../../domain/agent-role';
import { ValidationError } from '../../../domain/errors';
import { AgentRoleFields } from '../../ports/agent-role-repository.port';
import { Clock } from '../../ports/clock.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { found, parseFields, requireAdmin, requireUuid } from '../guards';
import { changedFields, roleEvent } from '../scope-context-audit';

export interface UpdateAgentRoleInput {
  actor: Actor;
  id: string;
  name?: string;
  description?: string | null;
  platformScopes?: readonly string[];
}

/** Changes any of name, description and platform_scopes; system roles may be edited too. */
export class UpdateAgentRole {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: UpdateAgentRoleInput): Promise<AgentRole> {
    requireAdmin(input.actor, 'change agent roles');
    const id = requireUuid(input.id);
    const changes = parseFields<Partial<AgentRoleFields>>({
      name: input.name === undefined ? undefined : () => parseRoleName(input.name),
      description: input.description === undefined ? undefined : () => parseDescription(input.description),
      platformScopes: input.platformScopes === undefined ? undefined : () => parsePlatformScopes(input.platformScopes),
    });
    if (Object.keys(changes).length === 0) {
      throw ValidationError.single('body', 'name, description or platform_scopes is required');
    }
    return this.work.run(async ({ roles, audit }) => {
      const now = this.clock.now();
      const role = found(await roles.update(id, changes, now), 'agent role', id);
      const changed = changedFields(changes, { platformScopes: 'platform_scopes' });
      await audit.append([roleEvent('agent_role.updated', input.actor, role, now, changed)]);
      return role;
    });
  }
}
