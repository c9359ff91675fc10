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
  // One-shot hash of the concatenation: the same digest as two updates, without a Hash object per event.
  return hash('sha256', previousHash + eventCanonicalJson(event), 'hex');
}

/**
 * canonicalJson(auditEventJson(event)), written in its sorted order directly:
 * every tool call hashes one event, and only `details` has keys to sort.
 */
export function eventCanonicalJson(event: Omit<AuditEvent, 'hash'>): string {
  let out = member('{', 'action', event.action);
  out = json(out, 'actor', pair(event.actor));
  out = member(out, 'details', event.details);
  out = member(out, 'id', event.id);
  out = member(out, 'ip', event.ip);
  out = member(out, 'key_id', event.keyId);
  out = member(out, 'occurred_at', event.occurredAt.toISOString());
  out = member(out, 'request_id', event.requestId);
  out = member(out, 'seq', event.seq);
  out = json(out, 'target', pair(event.target));
  return member(out, 'user_id', event.userId) + '}';
}

/** An actor or target: `{"id":…,"type":…}`. */
function pair(value: { id: string | null; type: string }): string {
  return member(member('{', 'id', value.id), 'type', value.type) + '}';
}

/** Appends `"key":value` to an object's JSON under way; an undefined value is left out, as canonicalJson leaves it. */
function member(out: string, key: string, value: unknown): string {
  return value === undefined ? out : json(out, key, canonicalJson(value));
}

function json(out: string, key: string, valueJson: string): string {
  return `${out}${out.length > 1 ? ',' : ''}"${key}":${valueJson}`;
}
