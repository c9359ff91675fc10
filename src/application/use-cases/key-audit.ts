import { Actor } from '../../domain/actor';
import { ApiKey } from '../../domain/api-key';
import { AuditAction, AuditRecord, AuditValue, NO_ORIGIN } from '../../domain/audit';


/** What the trail says about a key: never its hash or raw value. */
export function keyFacts(key: ApiKey): { [field: string]: AuditValue } {
  return {
    name: key.name,
    scopes: [...key.scopes.toArray()],
    expires_at: key.expiresAt ? key.expiresAt.toISOString() : null,
  };
}

/** A user's (or an internal job's) change to a key. */
export function keyEvent(
  action: AuditAction, actor: Actor, key: ApiKey, at: Date, details: { [field: string]: AuditValue } = {},
): AuditRecord {
  const { requestId, ip } = actor.origin ?? NO_ORIGIN;
  return {
    action,
    actor: { type: 'user', id: actor.userId },
    userId: key.userId,
    keyId: key.id,
    target: { type: 'api_key', id: key.id },
    occurredAt: at,
    requestId,
    ip,
    details,
  };
}
