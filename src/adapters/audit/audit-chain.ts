import { hash } from 'node:crypto';
import { AuditEvent } from '../../domain/audit';
import { canonicalJson } from './canonical-json';

/** The previous hash of the first event ever written. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * An event as the API shows it (GET /api/v1/audit-events, the NDJSON export),
 * without its hash. The hash covers exactly this, so anyone holding an export
 * can recompute the chain without keygate.
 */
export function auditEventJson(event: Omit<AuditEvent, 'hash'>) {
  return {
    id: event.id,
    seq: event.seq,
    occurred_at: event.occurredAt.toISOString(),
    action: event.action,
    actor: { type: event.actor.type, id: event.actor.id },
    user_id: event.userId,
    key_id: event.keyId,
    target: { type: event.target.type, id: event.target.id },
    request_id: event.requestId,
    ip: event.ip,
    details: event.details,
  };
}

/** SHA-256 hex of the previous event's hash followed by this event's canonical JSON. */
export function chainHash(previousHash: string, event: Omit<AuditEvent, 'hash'>): string {
  return chainHashOfJson(previousHash, eventCanonicalJson(event));
}

/** chainHash, for an event whose canonical JSON is already written (the writer's storedEventJson). */
export function chainHashOfJson(previousHash: string, canonicalEventJson: string): string {
  // One-shot hash of the concatenation: the same digest as two updates, without a Hash object per event.
  return hash('sha256', previousHash + canonicalEventJson, 'hex');
}

/**
 * canonicalJson(auditEventJson(event)), with the members written in their
 * sorted order, so that only `details` may need ordering.
 */
export function eventCanonicalJson(event: Omit<AuditEvent, 'hash'>): string {
  return canonicalJson({
    action: event.action,
    actor: { id: event.actor.id, type: event.actor.type },
    details: event.details,
    id: event.id,
    ip: event.ip,
    key_id: event.keyId,
    occurred_at: event.occurredAt.toISOString(),
    request_id: event.requestId,
    seq: event.seq,
    target: { id: event.target.id, type: event.target.type },
    user_id: event.userId,
  });
}
