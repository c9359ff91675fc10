import { Actor } from '../../../domain/actor';
import { AgentRole, parseDescription, parsePlatformScopes, parseRoleName } from '../../../domain/agent-role';
import { AgentRoleFields, AgentRoleRepository } from '../../ports/agent-role-repository.port';
import { Clock } from '../../ports/clock.port';
import { parseFields, requireAdmin } from '../guards';

export interface CreateAgentRoleInput {
  actor: Actor;
  name: string;
  description?: string | null;
  /** Required; [] means full access. */
  platformScopes: readonly string[];
}

export class CreateAgentRole {
  constructor(
    private readonly roles: AgentRoleRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: CreateAgentRoleInput): Promise<AgentRole> {
    requireAdmin(input.actor, 'create agent roles');
    const fields = parseFields<AgentRoleFields>({
      name: () => parseRoleName(input.name),
      description: () => parseDescription(input.description),
      platformScopes: () => parsePlatformScopes(input.platformScopes),
    });
    return this.roles.insert(fields, this.clock.now());
  }
}
