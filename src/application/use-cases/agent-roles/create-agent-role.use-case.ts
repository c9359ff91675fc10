import { Actor } from '../../../domain/actor';
import { AgentRole, parseDescription, parsePlatformScopes, parseRoleName } from '../../../domain/agent-role';
import { AgentRoleFields } from '../../ports/agent-role-repository.port';
import { Clock } from '../../ports/clock.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { parseFields, requireAdmin } from '../guards';
import { roleEvent } from '../scope-context-audit';

export interface CreateAgentRoleInput {
  actor: Actor;
  name: string;
  description?: string | null;
  /** Required; [] means full access. */
  platformScopes: readonly string[];
}

export class CreateAgentRole {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: CreateAgentRoleInput): Promise<AgentRole> {
    requireAdmin(input.actor, 'create agent roles');
    const fields = parseFields<AgentRoleFields>({
      name: () => parseRoleName(input.name),
      description: () => parseDescription(input.description),
      platformScopes: () => parsePlatformScopes(input.platformScopes),
    });
    return this.work.run(async ({ roles, audit }) => {
      const now = this.clock.now();
      const role = await roles.insert(fields, now);
      await audit.append([roleEvent('agent_role.created', input.actor, role, now)]);
      return role;
    });
  }
}
