import { AgentRole } from '../../../domain/agent-role';
import { ModeToolConfig } from '../../../domain/mode';
import { ScopeSet } from '../../../domain/scope';
import { ToolDescriptor } from '../../../domain/tool';
import { ModeSessionView } from '../../../application/use-cases/mode-sessions/start-mode-session.use-case';
import { AgentRoleDto } from './agent-role.dto';
import { ModeSessionDto } from './mode-session.dto';
import { ModeToolConfigDto } from './mode-tool-config.dto';
import { ToolDto, ToolSetDto } from './tool-set.dto';

export function presentRole(role: AgentRole): AgentRoleDto {
  return {
    id: role.id,
    name: role.name,
    description: role.description,
    platform_scopes: role.platformScopes.toArray(),
    is_system: role.isSystem,
    created_at: role.createdAt.toISOString(),
    updated_at: role.updatedAt.toISOString(),
  };
}

export function presentMode(mode: ModeToolConfig): ModeToolConfigDto {
  return {
    id: mode.id,
    mode: mode.mode,
    additional_scopes: mode.additionalScopes.toArray(),
    created_at: mode.createdAt.toISOString(),
    updated_at: mode.updatedAt.toISOString(),
  };
}

/** `effective_scopes` keeps the spec's array form (empty = full access); `full_access` says so plainly. */
export function presentScopes(scopes: ScopeSet): Pick<ToolSetDto, 'effective_scopes' | 'full_access'> {
  return { effective_scopes: scopes.toArray(), full_access: scopes.isFullAccess };
}

export function presentSession({ session, effectiveScopes }: ModeSessionView): ModeSessionDto {
  return {
    id: session.id,
    agent_role_id: session.agentRoleId,
    mode: session.mode,
    user_id: session.userId,
    started_at: session.startedAt.toISOString(),
    ...presentScopes(effectiveScopes),
  };
}

export function presentTool(tool: ToolDescriptor): ToolDto {
  return { name: tool.name, title: tool.title, description: tool.description, input_schema: tool.inputSchema };
}
