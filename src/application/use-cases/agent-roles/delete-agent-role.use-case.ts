import { Actor } from '../../../domain/actor';
import { ConflictError, NotFoundError } from '../../../domain/errors';
import { AgentRoleRepository } from '../../ports/agent-role-repository.port';
import { found, requireAdmin, requireUuid } from '../guards';

export interface DeleteAgentRoleInput {
  actor: Actor;
  id: string;
}

/** System roles are seeded defaults that workers rely on: they can be edited, never deleted. */
export class DeleteAgentRole {
  constructor(private readonly roles: AgentRoleRepository) {}

  async execute(input: DeleteAgentRoleInput): Promise<void> {
    requireAdmin(input.actor, 'delete agent roles');
    const id = requireUuid(input.id);
    const role = found(await this.roles.findById(id), 'agent role', id);
    if (role.isSystem) throw new ConflictError(`Agent role ${role.name} is a system role and cannot be deleted`);
    if (!(await this.roles.delete(id))) throw new NotFoundError('agent role', id);
  }
}
