import { CreateAgentRole } from '../../src/application/use-cases/agent-roles/create-agent-role.use-case';
import { DeleteAgentRole } from '../../src/application/use-cases/agent-roles/delete-agent-role.use-case';
import { GetAgentRole } from '../../src/application/use-cases/agent-roles/get-agent-role.use-case';
import { ListAgentRoles } from '../../src/application/use-cases/agent-roles/list-agent-roles.use-case';
import { UpdateAgentRole } from '../../src/application/use-cases/agent-roles/update-agent-role.use-case';
import { BuildAgentToolSet } from '../../src/application/use-cases/build-agent-tool-set/build-agent-tool-set.use-case';
import { FilterTools } from '../../src/application/use-cases/gateway/filter-tools/filter-tools.use-case';
import { EndModeSession } from '../../src/application/use-cases/mode-sessions/end-mode-session.use-case';
import { GetModeSession } from '../../src/application/use-cases/mode-sessions/get-mode-session.use-case';
import { StartModeSession } from '../../src/application/use-cases/mode-sessions/start-mode-session.use-case';
import { CreateModeToolConfig } from '../../src/application/use-cases/mode-tool-configs/create-mode-tool-config.use-case';
import { DeleteModeToolConfig } from '../../src/application/use-cases/mode-tool-configs/delete-mode-tool-config.use-case';
import { GetModeToolConfig } from '../../src/application/use-cases/mode-tool-configs/get-mode-tool-config.use-case';
import { ListModeToolConfigs } from '../../src/application/use-cases/mode-tool-configs/list-mode-tool-configs.use-case';
import { UpdateModeToolConfig } from '../../src/application/use-cases/mode-tool-configs/update-mode-tool-config.use-case';
import { ResolveAgentScopes } from '../../src/application/use-cases/resolve-agent-scopes/resolve-agent-scopes.use-case';
import { ValidationError } from '../../src/domain/errors';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryAgentRoleRepository } from '../fakes/in-memory-agent-role.repository';
import { InMemoryModeSessionRepository } from '../fakes/in-memory-mode-session.repository';
import { InMemoryModeToolConfigRepository } from '../fakes/in-memory-mode-tool-config.repository';
import { InMemoryUnitOfWork } from '../fakes/in-memory-unit-of-work';

/** The agent role, mode and tool-set use-cases over in-memory adapters and a clock the test controls. */
export function makeScopeContextService() {
  const clock = new FixedClock();
  const sessions = new InMemoryModeSessionRepository();
  const roles = new InMemoryAgentRoleRepository(sessions);
  const modes = new InMemoryModeToolConfigRepository(sessions);
  const work = new InMemoryUnitOfWork({ roles, modes, sessions });
  const filterTools = new FilterTools();
  const resolveAgentScopes = new ResolveAgentScopes(roles, modes, sessions);
  return {
    clock,
    roles,
    modes,
    sessions,
    audit: work.audit,
    createAgentRole: new CreateAgentRole(work, clock),
    listAgentRoles: new ListAgentRoles(roles),
    getAgentRole: new GetAgentRole(roles),
    updateAgentRole: new UpdateAgentRole(work, clock),
    deleteAgentRole: new DeleteAgentRole(work, clock),
    createModeToolConfig: new CreateModeToolConfig(work, clock),
    listModeToolConfigs: new ListModeToolConfigs(modes),
    getModeToolConfig: new GetModeToolConfig(modes),
    updateModeToolConfig: new UpdateModeToolConfig(work, clock),
    deleteModeToolConfig: new DeleteModeToolConfig(work, clock),
    startModeSession: new StartModeSession(work, clock),
    getModeSession: new GetModeSession(sessions, resolveAgentScopes),
    endModeSession: new EndModeSession(work, clock),
    resolveAgentScopes,
    filterTools,
    buildAgentToolSet: new BuildAgentToolSet(resolveAgentScopes, filterTools),
  };
}

export type ScopeContextService = ReturnType<typeof makeScopeContextService>;

/** The error a promise rejects with, or null when it resolves; for asserting on fields. */
export async function caught(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => null,
    (error: unknown) => error,
  );
}

/** The field names of a ValidationError, in the order reported. */
export async function failedFields(work: Promise<unknown>): Promise<string[]> {
  const error = await caught(work);
  if (!(error instanceof ValidationError)) throw new Error(`expected a ValidationError, got ${String(error)}`);
  return error.errors.map((e) => e.field);
}
