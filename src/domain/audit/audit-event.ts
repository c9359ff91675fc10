/** What an event's details may hold: plain JSON. */
export type AuditValue = string | number | boolean | null | AuditValue[] | { [field: string]: AuditValue };

/** Every action the audit trail records, as the API names them. */
export const AUDIT_ACTIONS = [
  'key.created',
  'key.updated',
  'key.rolled',
  'key.revoked',
  'key.leaked',
  'agent_role.created',
  'agent_role.updated',
  'agent_role.deleted',
  'mode_tool_config.created',
  'mode_tool_config.updated',
  'mode_tool_config.deleted',
  'mode_session.started',
  'mode_session.ended',
  'mcp_server.created',
  'mcp_server.updated',
  'mcp_server.deleted',
  'mcp_server.tool_changed',
  'mcp_connection.created',
  'mcp_connection.revoked',
  'mcp_connection.refreshed',
  'mcp_connection.failed',
  'tool_rules.updated',
  'approval.requested',
  'approval.granted',
  'approval.denied',
  'approval.used',
  'approval.expired',
  'tool.called',
  'tool.denied',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export function isAuditAction(value: unknown): value is AuditAction {
  return typeof value === 'string' && (AUDIT_ACTIONS as readonly string[]).includes(value);
}

export type AuditActorType = 'user' | 'key' | 'scanner' | 'system';

export interface AuditActor {
  type: AuditActorType;
  id: string | null;
}

export interface AuditTarget {
  type: string;
  id: string | null;
}

/** Where a change was asked for: the HTTP request's id and client address; null for internal jobs. */
export interface AuditOrigin {
  requestId: string | null;
  ip: string | null;
}

export const NO_ORIGIN: AuditOrigin = { requestId: null, ip: null };

/**
 * What happened, as the application reports it; the store adds the chain
 * (id, seq, hash). `details` never holds a raw key, a JWT, a header value or
 * tool arguments.
 */
export interface AuditRecord extends AuditOrigin {
  action: AuditAction;
  actor: AuditActor;
  /** The user the event concerns: a key's owner, a session's owner, the acting admin for catalog changes. */
  userId: string | null;
  keyId: string | null;
  target: AuditTarget;
  occurredAt: Date;
  details: { [field: string]: AuditValue };
}

export interface AuditEvent extends AuditRecord {
  id: string;
  seq: number;
  /** SHA-256 hex over the previous event's hash and this event's canonical JSON. */
  hash: string;
}
