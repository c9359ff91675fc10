import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { AgentRoleRepository } from '../../application/ports/agent-role-repository.port';
import { Clock } from '../../application/ports/clock.port';
import { ModeSessionRepository } from '../../application/ports/mode-session-repository.port';
import { ModeToolConfigRepository } from '../../application/ports/mode-tool-config-repository.port';
import { UnitOfWork } from '../../application/ports/unit-of-work.port';
import { CreateAgentRole } from '../../application/use-cases/agent-roles/create-agent-role.use-case';
import { DeleteAgentRole } from '../../application/use-cases/agent-roles/delete-agent-role.use-case';
import { GetAgentRole } from '../../application/use-cases/agent-roles/get-agent-role.use-case';
import { ListAgentRoles } from '../../application/use-cases/agent-roles/list-agent-roles.use-case';
import { UpdateAgentRole } from '../../application/use-cases/agent-roles/update-agent-role.use-case';
import { BuildAgentToolSet } from '../../application/use-cases/build-agent-tool-set/build-agent-tool-set.use-case';
import { FilterTools } from '../../application/use-cases/gateway/filter-tools/filter-tools.use-case';
import { EndModeSession } from '../../application/use-cases/mode-sessions/end-mode-session.use-case';
import { GetModeSession } from '../../application/use-cases/mode-sessions/get-mode-session.use-case';
import { StartModeSession } from '../../application/use-cases/mode-sessions/start-mode-session.use-case';
import { CreateModeToolConfig } from '../../application/use-cases/mode-tool-configs/create-mode-tool-config.use-case';
import { DeleteModeToolConfig } from '../../application/use-cases/mode-tool-configs/delete-mode-tool-config.use-case';
import { GetModeToolConfig } from '../../application/use-cases/mode-tool-configs/get-mode-tool-config.use-case';
import { ListModeToolConfigs } from '../../application/use-cases/mode-tool-configs/list-mode-tool-configs.use-case';
import { UpdateModeToolConfig } from '../../application/use-cases/mode-tool-configs/update-mode-tool-config.use-case';
import { ResolveAgentScopes } from '../../application/use-cases/resolve-agent-scopes/resolve-agent-scopes.use-case';
import { AgentRolesController } from '../../adapters/http/controllers/agent-roles.controller';
import { ModeSessionsController } from '../../adapters/http/controllers/mode-sessions.controller';
import { ModeToolConfigsController } from '../../adapters/http/controllers/mode-tool-configs.controller';
import { ToolSetsController } from '../../adapters/http/controllers/tool-sets.controller';
import { TypeormAgentRoleRepository } from '../../adapters/persistence/typeorm-agent-role.repository';
import { TypeormModeSessionRepository } from '../../adapters/persistence/typeorm-mode-session.repository';
import { TypeormModeToolConfigRepository } from '../../adapters/persistence/typeorm-mode-tool-config.repository';
import { TOKENS } from './tokens';

type Roles = AgentRoleRepository;
type Modes = ModeToolConfigRepository;
type Sessions = ModeSessionRepository;
type Work = UnitOfWork;
const { AgentRoleRepository: R, ModeToolConfigRepository: M, ModeSessionRepository: S, Clock: C, UnitOfWork: W } = TOKENS;

/** Agent roles, mode tool configs, mode sessions and tool sets (spec 2.4, 4.6). */
export function bindScopeContexts(c: Container): void {
  c.bind<Roles>(R).toResolvedValue((ds: DataSource) => new TypeormAgentRoleRepository(ds.manager), [TOKENS.DataSource]);
  c.bind<Modes>(M).toResolvedValue((ds: DataSource) => new TypeormModeToolConfigRepository(ds.manager), [TOKENS.DataSource]);
  c.bind<Sessions>(S).toResolvedValue((ds: DataSource) => new TypeormModeSessionRepository(ds.manager), [TOKENS.DataSource]);

  c.bind(ListAgentRoles).toResolvedValue((r: Roles) => new ListAgentRoles(r), [R]);
  c.bind(GetAgentRole).toResolvedValue((r: Roles) => new GetAgentRole(r), [R]);
  c.bind(CreateAgentRole).toResolvedValue((w: Work, clock: Clock) => new CreateAgentRole(w, clock), [W, C]);
  c.bind(UpdateAgentRole).toResolvedValue((w: Work, clock: Clock) => new UpdateAgentRole(w, clock), [W, C]);
  c.bind(DeleteAgentRole).toResolvedValue((w: Work, clock: Clock) => new DeleteAgentRole(w, clock), [W, C]);

  c.bind(ListModeToolConfigs).toResolvedValue((m: Modes) => new ListModeToolConfigs(m), [M]);
  c.bind(GetModeToolConfig).toResolvedValue((m: Modes) => new GetModeToolConfig(m), [M]);
  c.bind(CreateModeToolConfig).toResolvedValue((w: Work, clock: Clock) => new CreateModeToolConfig(w, clock), [W, C]);
  c.bind(UpdateModeToolConfig).toResolvedValue((w: Work, clock: Clock) => new UpdateModeToolConfig(w, clock), [W, C]);
  c.bind(DeleteModeToolConfig).toResolvedValue((w: Work, clock: Clock) => new DeleteModeToolConfig(w, clock), [W, C]);

  c.bind(ResolveAgentScopes).toResolvedValue((r: Roles, m: Modes, s: Sessions) => new ResolveAgentScopes(r, m, s), [R, M, S]);
  c.bind(StartModeSession).toResolvedValue((w: Work, clock: Clock) => new StartModeSession(w, clock), [W, C]);
  c.bind(GetModeSession).toResolvedValue(
    (s: Sessions, resolve: ResolveAgentScopes) => new GetModeSession(s, resolve),
    [S, ResolveAgentScopes],
  );
  c.bind(EndModeSession).toResolvedValue((w: Work, clock: Clock) => new EndModeSession(w, clock), [W, C]);
  c.bind(BuildAgentToolSet).toResolvedValue(
    (resolve: ResolveAgentScopes, filter: FilterTools) => new BuildAgentToolSet(resolve, filter),
    [ResolveAgentScopes, FilterTools],
  );

  c.bind(AgentRolesController).toResolvedValue(
    (list: ListAgentRoles, get: GetAgentRole, create: CreateAgentRole, update: UpdateAgentRole, remove: DeleteAgentRole) =>
      new AgentRolesController({ list, get, create, update, remove }),
    [ListAgentRoles, GetAgentRole, CreateAgentRole, UpdateAgentRole, DeleteAgentRole],
  );
  c.bind(ModeToolConfigsController).toResolvedValue(
    (
      list: ListModeToolConfigs,
      get: GetModeToolConfig,
      create: CreateModeToolConfig,
      update: UpdateModeToolConfig,
      remove: DeleteModeToolConfig,
    ) => new ModeToolConfigsController({ list, get, create, update, remove }),
    [ListModeToolConfigs, GetModeToolConfig, CreateModeToolConfig, UpdateModeToolConfig, DeleteModeToolConfig],
  );
  c.bind(ModeSessionsController).toResolvedValue(
    (start: StartModeSession, get: GetModeSession, end: EndModeSession) => new ModeSessionsController(start, get, end),
    [StartModeSession, GetModeSession, EndModeSession],
  );
  c.bind(ToolSetsController).toResolvedValue((build: BuildAgentToolSet) => new ToolSetsController(build), [BuildAgentToolSet]);
}
