import { Actor } from '../../../domain/actor';
import { ConflictError, NotFoundError } from '../../../domain/errors';
import { Clock } from '../../ports/clock.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { found, requireAdmin, requireUuid } from '../guards';
import { roleEvent } from '../scope-context-audit';

export interface DeleteAgentRoleInput {
  actor: Actor;
  id: string;
}

/** System roles are seeded defaults that workers rely on: they can be edited, never deleted. */
export class DeleteAgentRole {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: DeleteAgentRoleInput): Promise<void> {
    requireAdmin(input.actor, 'delete agent roles');
    const id = requireUuid(input.id);
    await this.work.run(async ({ roles, audit }) => {
      const role = found(await roles.findById(id), 'agent role', id);
      if (role.isSystem) throw new ConflictError(`Agent role ${role.name} is a system role and cannot be deleted`);
      if (!(await roles.delete(id))) throw new NotFoundError('agent role', id);
      await audit.append([roleEvent('agent_role.deleted', input.actor, role, this.clock.now())]);
    });
  }
}
