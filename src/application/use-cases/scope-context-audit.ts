import { Actor } from '../../domain/actor';
import { AgentRole } from '../../domain/agent-role';
import { AuditAction, AuditRecord, AuditValue } from '../../domain/audit';
import { ModeSession, ModeToolConfig } from '../../domain/mode';
import { actorEvent } from './actor-event';

/**
 * Roles and mode configurations are the platform's, changed by admins: the
 * event concerns the acting admin. A session concerns the user who owns it.
 */
export function roleEvent(action: AuditAction, actor: Actor, role: AgentRole, at: Date, changed?: string[]): AuditRecord {
  const details: { [field: string]: AuditValue } = { name: role.name, platform_scopes: [...role.platformScopes.toArray()] };
  if (changed) details.changed = changed;
  return actorEvent(action, actor, { userId: actor.userId, target: { type: 'agent_role', id: role.id } }, at, details);
}

export function modeConfigEvent(action: AuditAction, actor: Actor, config: ModeToolConfig, at: Date, changed?: string[]): AuditRecord {
  const details: { [field: string]: AuditValue } = { mode: config.mode, additional_scopes: [...config.additionalScopes.toArray()] };
  if (changed) details.changed = changed;
  return actorEvent(action, actor, { userId: actor.userId, target: { type: 'mode_tool_config', id: config.id } }, at, details);
}

export function sessionEvent(action: AuditAction, actor: Actor, session: ModeSession, at: Date): AuditRecord {
  return actorEvent(action, actor, { userId: session.userId, target: { type: 'mode_session', id: session.id } }, at, {
    agent_role_id: session.agentRoleId,
    mode_tool_config_id: session.modeToolConfigId,
    mode: session.mode,
  });
}

/** The wire names of the fields a change set names, for `details.changed`. */
export function changedFields(changes: object, wireNames: Record<string, string>): string[] {
  return Object.keys(changes).map((field) => wireNames[field] ?? field);
}
