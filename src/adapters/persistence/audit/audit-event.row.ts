import { AuditAction, AuditActorType, AuditEvent, AuditValue } from '../../../domain/audit';

/** A row of audit_events as node-postgres returns it (bigint as text). */
export interface AuditEventRow {
  id: string;
  seq: string;
  occurred_at: Date;
  action: string;
  actor_type: string;
  actor_id: string | null;
  user_id: string | null;
  key_id: string | null;
  target_type: string;
  target_id: string | null;
  request_id: string | null;
  ip: string | null;
  details: { [field: string]: AuditValue };
  hash: string;
}

export const AUDIT_COLUMNS =
  'id, seq, occurred_at, action, actor_type, actor_id, user_id, key_id, target_type, target_id, request_id, ip, details, hash';

export function toAuditEvent(row: AuditEventRow): AuditEvent {
  return {
    id: row.id,
    seq: Number(row.seq),
    occurredAt: row.occurred_at,
    action: row.action as AuditAction,
    actor: { type: row.actor_type as AuditActorType, id: row.actor_id },
    userId: row.user_id,
    keyId: row.key_id,
    target: { type: row.target_type, id: row.target_id },
    requestId: row.request_id,
    ip: row.ip,
    details: row.details,
    hash: row.hash.trim(),
  };
}
