import { Actor } from '../../domain/actor';
import { ApiKey } from '../../domain/api-key';
import { AuditAction, AuditRecord, AuditValue } from '../../domain/audit';
import { ScopeSet } from '../../domain/scope';
import { actorEvent } from './actor-event';

type Facts = { [field: string]: AuditValue };

/**
 * The trail's first fields, recorded even when null. Any other attribute is
 * left out while null (the limits, and whatever a later change adds), so
 * older events keep their shape.
 */
const ALWAYS_RECORDED: ReadonlySet<string> = new Set(['name', 'scopes', 'expires_at']);

/**
 * What the trail says about a key: its attributes (ApiKeyAttributes) under
 * their wire names. The hash and the raw key are not attributes, so they
 * never get here.
 */
export function keyFacts(key: ApiKey): Facts {
  const facts: Facts = {};
  for (const [field, value] of Object.entries(attributeFacts(key))) {
    if (value !== null || ALWAYS_RECORDED.has(field)) facts[field] = value;
  }
  return facts;
}

/** Every attribute under its wire name, null ones included: what an update compares. */
export function attributeFacts(key: ApiKey): Facts {
  return Object.fromEntries(Object.entries(key.attributes).map(([field, value]) => [snakeCase(field), auditValue(value)]));
}

/** A user's (or an internal job's) change to a key. */
export function keyEvent(action: AuditAction, actor: Actor, key: ApiKey, at: Date, details: Facts = {}): AuditRecord {
  return actorEvent(action, actor, { userId: key.userId, keyId: key.id, target: { type: 'api_key', id: key.id } }, at, details);
}

/** Dates as ISO-8601, scope sets as their list, objects with wire (snake_case) field names. */
function auditValue(value: unknown): AuditValue {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (value instanceof ScopeSet) return value.toArray();
  if (Array.isArray(value)) return value.map(auditValue);
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([field, inner]) => [snakeCase(field), auditValue(inner)]));
  }
  return value as string | number | boolean;
}

/** A domain field's wire name: `expiresAt` is `expires_at`. */
export function snakeCase(field: string): string {
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
