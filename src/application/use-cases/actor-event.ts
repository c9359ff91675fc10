import { Actor } from '../../domain/actor';
import { AuditAction, AuditRecord, AuditTarget, AuditValue, NO_ORIGIN } from '../../domain/audit';

export interface EventSubject {
  /** The user the event concerns. */
  userId: string;
  keyId?: string | null;
  target: AuditTarget;
}

/** A change a user (or an internal job acting as an admin) asked for. */
export function actorEvent(
  action: AuditAction, actor: Actor, subject: EventSubject, at: Date, details: { [field: string]: AuditValue } = {},
): AuditRecord {
  const { requestId, ip } = actor.origin ?? NO_ORIGIN;
  return {
    action,
    actor: { type: 'user', id: actor.userId },
    userId: subject.userId,
    keyId: subject.keyId ?? null,
    target: subject.target,
    occurredAt: at,
    requestId,
    ip,
    details,
  };
}
