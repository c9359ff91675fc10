import { Actor } from '../../domain/actor';
import { ApiKey } from '../../domain/api-key';
import { AuditAction, AuditRecord, AuditValue } from '../../domain/audit';
import { actorEvent } from './actor-event';

/** What the trail says about a key: never its hash or raw value. */
export function keyFacts(key: ApiKey): { [field: string]: AuditValue } {
  return {
    name: key.name,
    scopes: [...key.scopes.toArray()],
    expires_at: key.expiresAt ? key.expiresAt.toISOString() : null,
    ...limitFacts(key),
  };
}

/** A key's limits as the trail names them; left out while the key has none, so older events keep their shape. */
export function limitFacts(key: ApiKey): { rate_limit?: AuditValue; quota?: AuditValue } {
  const facts: { rate_limit?: AuditValue; quota?: AuditValue } = {};
  if (key.rateLimit) facts.rate_limit = { limit: key.rateLimit.limit, window_seconds: key.rateLimit.windowSeconds };
  if (key.quota)
    facts.quota = { refill: key.quota.refill ? { amount: key.quota.refill.amount, interval: key.quota.refill.interval } : null };
  return facts;
}

/** A user's (or an internal job's) change to a key. */
export function keyEvent(
  action: AuditAction,
  actor: Actor,
  key: ApiKey,
  at: Date,
  details: { [field: string]: AuditValue } = {},
): AuditRecord {
  return actorEvent(action, actor, { userId: key.userId, keyId: key.id, target: { type: 'api_key', id: key.id } }, at, details);
}
