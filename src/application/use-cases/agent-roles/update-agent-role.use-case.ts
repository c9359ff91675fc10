import { Actor } from '../../../domain/actor';
import { AgentRole, parseDescription, parsePlatformScopes, parseRoleName } from '../../../domain/agent-role';
import { ValidationError } from '../../../domain/errors';
import { AgentRoleFields, AgentRoleRepository } from '../../ports/agent-role-repository.port';
import { Clock } from '../../ports/clock.port';
import { found, parseFields, requireAdmin, requireUuid } from '../guards';

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
    private readonly roles: AgentRoleRepository,
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
    return found(await this.roles.update(id, changes, this.clock.now()), 'agent role', id);
  }
}
