import { AgentRole } from '../../../domain/agent-role';
import { AgentRoleRepository } from '../../ports/agent-role-repository.port';

/** Every role, system roles first, then by name; any authenticated caller may read them. */
export class ListAgentRoles {
  constructor(private readonly roles: AgentRoleRepository) {}

  async execute(_input: Record<string, never> = {}): Promise<AgentRole[]> {
    return this.roles.list();
  }
}
