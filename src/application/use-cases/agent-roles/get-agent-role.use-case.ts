import { AgentRole } from '../../../domain/agent-role';
import { AgentRoleRepository } from '../../ports/agent-role-repository.port';
import { found, requireUuid } from '../guards';

export interface GetAgentRoleInput {
  id: string;
}

export class GetAgentRole {
  constructor(private readonly roles: AgentRoleRepository) {}

  async execute(input: GetAgentRoleInput): Promise<AgentRole> {
    const id = requireUuid(input.id);
    return found(await this.roles.findById(id), 'agent role', id);
  }
}
