import { Router } from 'express';
import { CreateAgentRole } from '../../../application/use-cases/agent-roles/create-agent-role.use-case';
import { DeleteAgentRole } from '../../../application/use-cases/agent-roles/delete-agent-role.use-case';
import { GetAgentRole } from '../../../application/use-cases/agent-roles/get-agent-role.use-case';
import { ListAgentRoles } from '../../../application/use-cases/agent-roles/list-agent-roles.use-case';
import { UpdateAgentRole } from '../../../application/use-cases/agent-roles/update-agent-role.use-case';
import { AgentRoleInputDto, AgentRoleUpdateDto } from '../dto/agent-role.dto';
import { presentRole } from '../dto/scope-context.presenter';
import { catalogRouter } from './catalog.router';

export interface AgentRoleUseCases {
  list: ListAgentRoles;
  get: GetAgentRole;
  create: CreateAgentRole;
  update: UpdateAgentRole;
  remove: DeleteAgentRole;
}

/** /api/v1/agent-roles */
export class AgentRolesController {
  constructor(private readonly useCases: AgentRoleUseCases) {}

  router(): Router {
    const { list, get, create, update, remove } = this.useCases;
    return catalogRouter(
      { create: AgentRoleInputDto, update: AgentRoleUpdateDto },
      {
        list: () => list.execute(),
        get: (id) => get.execute({ id }),
        create: (actor, b) => create.execute({ actor, name: b.name, description: b.description, platformScopes: b.platform_scopes }),
        update: (actor, id, b) =>
          update.execute({ actor, id, name: b.name, description: b.description, platformScopes: b.platform_scopes }),
        remove: (actor, id) => remove.execute({ actor, id }),
        present: presentRole,
      },
    );
  }
}
