import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { AuditLog } from '../../../application/ports/audit-log.port';
import { AuditEvent, AuditRecord, AuditValue } from '../../../domain/audit';
import { chainHash } from '../../audit/audit-chain';
import { wellFormed } from '../../audit/canonical-json';
import { databaseCall } from '../database-unavailable';

/** Longer strings in an event are cut: details are for finding things, not for storing payloads. */
const MAX_TEXT = 1024;

/**
 * Appends events to audit_events in the caller's transaction. The chain's head
 * row is locked first, so writers on every replica take turns: seq follows
 * commit order and each hash covers the one before it.
 */
export class TypeormAuditLog implements AuditLog {
  constructor(private readonly manager: EntityManager) {}

  /** Must run inside a transaction: the head's lock is held until it ends. */
  async append(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    const [head] = await databaseCall(this.manager.query('SELECT head_seq, head_hash FROM audit_chain WHERE id = 1 FOR UPDATE'));
    let seq = Number(head.head_seq);
    let hash = String(head.head_hash).trim();
    const events: AuditEvent[] = records.map((record) => {
      seq += 1;
      const event = storable(record, seq);
      hash = chainHash(hash, event);
      return { ...event, hash };
    });
    // One jsonb parameter of row tuples: the engine's JSON.stringify writes it, where 14 text arrays took node-postgres's escaping per element.
    await databaseCall(this.manager.query(
      `INSERT INTO audit_events (id, seq, occurred_at, action, actor_type, actor_id, user_id, key_id, target_type, target_id, request_id, ip, details, hash)
       SELECT (r->>0)::uuid, (r->>1)::bigint, (r->>2)::timestamptz, r->>3, r->>4, r->>5, (r->>6)::uuid, (r->>7)::uuid,
              r->>8, r->>9, r->>10, r->>11, r->12, r->>13
       FROM jsonb_array_elements($1::jsonb) AS r`,
      [JSON.stringify(events.map((e) => [
        e.id, e.seq, e.occurredAt.toISOString(), e.action, e.actor.type, e.actor.id, e.userId, e.keyId,
        e.target.type, e.target.id, e.requestId, e.ip, e.details, e.hash,
      ]))],
    ));
    await databaseCall(this.manager.query('UPDATE audit_chain SET head_seq = $1, head_hash = $2 WHERE id = 1', [seq, hash]));
  }
}

/** The event exactly as it will read back from PostgreSQL, so the hash computed now verifies later. */
function storable(record: AuditRecord, seq: number): Omit<AuditEvent, 'hash'> {
  return {
    id: randomUUID(),
    seq,
    // timestamptz keeps microseconds and JavaScript milliseconds: both agree on a whole millisecond.
    occurredAt: new Date(Math.floor(record.occurredAt.getTime())),
    action: record.action,
    actor: { type: record.actor.type, id: text(record.actor.id) },
    userId: record.userId,
    keyId: record.keyId,
    target: { type: text(record.target.type) ?? '', id: text(record.target.id) },
    requestId: text(record.requestId),
    ip: text(record.ip),
    details: value(record.details) as { [field: string]: AuditValue },
  };
}

function text(value: string | null): string | null {
  return value === null ? null : wellFormed(value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) : value);
}

function value(v: AuditValue): AuditValue {
  // A tool call's details need neither (short ids, names, scopes): kept as they are, not copied.
  if (storedAsIs(v)) return v;
  return repaired(v);
}

function repaired(v: AuditValue): AuditValue {
  if (typeof v === 'string') return text(v);
  if (Array.isArray(v)) return v.map(repaired);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, inner]) => [wellFormed(k), repaired(inner)]));
  }
  return v;
}

/** True when `repaired` would give back an equal value: no string to cut or make well-formed, keys included. */
function storedAsIs(v: AuditValue): boolean {
  if (typeof v === 'string') return v.length <= MAX_TEXT && wellFormed(v) === v;
  if (Array.isArray(v)) return v.every(storedAsIs);
  if (v !== null && typeof v === 'object') {
    for (const k in v) if (wellFormed(k) !== k || !storedAsIs(v[k])) return false;
    return true;
  }
  return true;
}
