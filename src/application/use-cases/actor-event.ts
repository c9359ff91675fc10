import { Actor } from '../../domain/actor';
import { AuditAction, AuditActor, AuditOrigin, AuditRecord, AuditTarget, AuditValue, NO_ORIGIN } from '../../domain/audit';

export interface EventSubject {
  /** The user the event concerns. */
  userId: string;
  keyId?: string | null;
  target: AuditTarget;
}

/** One audit record: who did what to which subject, from where, when. Every event builder ends here. */
export function auditEvent(
  action: AuditAction,
  actor: AuditActor,
  subject: EventSubject,
  origin: AuditOrigin,
  at: Date,
  details: { [field: string]: AuditValue },
): AuditRecord {
  return {
    action,
    actor,
    userId: subject.userId,
    keyId: subject.keyId ?? null,
    target: subject.target,
    occurredAt: at,
    requestId: origin.requestId,
    ip: origin.ip,
    details,
  };
}

/** A change a user (or an internal job acting as an admin) asked for. */
export function actorEvent(
  action: AuditAction,
  actor: Actor,
  subject: EventSubject,
  at: Date,
  details: { [field: string]: AuditValue } = {},
): AuditRecord {
  return auditEvent(action, { type: 'user', id: actor.userId }, subject, actor.origin ?? NO_ORIGIN, at, details);
}

/** Who the trail names for a tool call: the key, the user behind an OAuth access token (no key), or the system (an internal job). */
export function callerActor(caller: { userId: string; keyId: string | null; byUser?: boolean }): AuditActor {
  if (caller.keyId !== null) return { type: 'key', id: caller.keyId };
  return caller.byUser ? { type: 'user', id: caller.userId } : { type: 'system', id: null };
}
