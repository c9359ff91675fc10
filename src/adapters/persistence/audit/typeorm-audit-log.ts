import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { AuditLog } from '../../../application/ports/audit-log.port';
import { AuditRecord, AuditValue } from '../../../domain/audit';
import { chainHashOfJson } from '../../audit/audit-chain';
import { canonicalJson, wellFormed } from '../../audit/canonical-json';
import { databaseCall } from '../database-unavailable';
import { NamedStatement, queryNamed } from '../named-statement';

/** Longer strings in an event are cut: details are for finding things, not for storing payloads. */
const MAX_TEXT = 1024;

/** The chain's last event: its seq and hash. */
export interface ChainHead {
  seq: number;
  hash: string;
}

/** Reads each event's canonical JSON and hash out of the one jsonb parameter of row tuples. */
const EVENTS_FROM_ROWS = `SELECT (e->>'id')::uuid, (e->>'seq')::bigint, (e->>'occurred_at')::timestamptz, e->>'action', e->'actor'->>'type', e->'actor'->>'id',
       (e->>'user_id')::uuid, (e->>'key_id')::uuid, e->'target'->>'type', e->'target'->>'id', e->>'request_id', e->>'ip', e->'details', r->>1`;
const EVENT_COLUMNS =
  'id, seq, occurred_at, action, actor_type, actor_id, user_id, key_id, target_type, target_id, request_id, ip, details, hash';

/**
 * Appends events to audit_events in the caller's transaction. The chain's head
 * row is locked first, so writers on every replica take turns: seq follows
 * commit order and each hash covers the one before it.
 */
export class TypeormAuditLog implements AuditLog {
  constructor(private readonly manager: EntityManager) {}

  /** Must run inside a transaction: the head's lock is held until it ends. */
  async append(records: readonly AuditRecord[]): Promise<void> {
    await this.appendLocked(records);
  }

  /** append, telling the head it left: the next batch may start from it (appendAtHead). */
  async appendLocked(records: readonly AuditRecord[]): Promise<ChainHead | null> {
    if (records.length === 0) return null;
    const [head] = await databaseCall(
      this.manager.query<{ head_seq: string; head_hash: string }[]>('SELECT head_seq, head_hash FROM audit_chain WHERE id = 1 FOR UPDATE'),
    );
    const chained = chainRows(records, { seq: Number(head.head_seq), hash: String(head.head_hash).trim() });
    // The canonical JSON the hash covers is also the row: one serialization per event, and the engine's JSON parser reads it back.
    await databaseCall(
      this.manager.query(
        `INSERT INTO audit_events (${EVENT_COLUMNS}) ${EVENTS_FROM_ROWS} FROM jsonb_array_elements($1::jsonb) AS r, LATERAL (SELECT r->0 AS e) AS event`,
        [chained.rows],
      ),
    );
    await databaseCall(
      this.manager.query('UPDATE audit_chain SET head_seq = $1, head_hash = $2 WHERE id = 1', [chained.head.seq, chained.head.hash]),
    );
    return chained.head;
  }
}

/**
 * One statement, outside any transaction, that appends `records` after `head`
 * only if the chain still ends there: it moves the head row from `head` (the
 * UPDATE waits for another writer's lock and then finds the head moved) and
 * inserts the events only when it did. One round trip instead of a locked
 * transaction's five, for a writer that remembers the head it left. Returns
 * the new head, or null when another writer moved the chain meanwhile
 * (nothing was written; append under the lock instead).
 */
export const APPEND_AT_HEAD: NamedStatement = {
  name: 'audit_events.append_at_head',
  text: `WITH moved AS (
           UPDATE audit_chain SET head_seq = $2, head_hash = $3 WHERE id = 1 AND head_seq = $1 RETURNING 1
         ), inserted AS (
           INSERT INTO audit_events (${EVENT_COLUMNS}) ${EVENTS_FROM_ROWS}
           FROM moved, jsonb_array_elements($4::jsonb) AS r, LATERAL (SELECT r->0 AS e) AS event
           RETURNING 1
         )
         SELECT count(*)::int AS n FROM inserted`,
};

export async function appendAtHead(manager: EntityManager, records: readonly AuditRecord[], head: ChainHead): Promise<ChainHead | null> {
  const chained = chainRows(records, head);
  const [{ n }] = await databaseCall(
    queryNamed<{ n: number }>(manager, APPEND_AT_HEAD, [head.seq, chained.head.seq, chained.head.hash, chained.rows]),
  );
  return n === records.length ? chained.head : null;
}

/** The events after `head`, each as `[canonical JSON, hash]` in one JSON array, and the head they leave. */
function chainRows(records: readonly AuditRecord[], head: ChainHead): { rows: string; head: ChainHead } {
  let seq = head.seq;
  let previous = head.hash;
  const rows = new Array<string>(records.length);
  for (let i = 0; i < records.length; i++) {
    seq += 1;
    const json = storedEventJson(records[i], randomUUID(), seq);
    previous = chainHashOfJson(previous, json);
    rows[i] = `[${json},"${previous}"]`;
  }
  return { rows: `[${rows.join(',')}]`, head: { seq, hash: previous } };
}

/**
 * The event's canonical JSON, written straight from the record as it will
 * read back from PostgreSQL (long text cut, text made well-formed, the time to
 * a whole millisecond, which timestamptz and JavaScript agree on): what its
 * hash covers, and what the verifier recomputes from the stored row with
 * eventCanonicalJson. The members are in their sorted order; only `details`
 * needs the general canonical form.
 */
export function storedEventJson(record: AuditRecord, id: string, seq: number): string {
  const q = JSON.stringify;
  const occurredAt = new Date(Math.floor(record.occurredAt.getTime())).toISOString();
  return (
    `{"action":${q(record.action)},"actor":{"id":${q(text(record.actor.id))},"type":${q(record.actor.type)}},` +
    `"details":${canonicalJson(value(record.details))},"id":${q(id)},"ip":${q(text(record.ip))},"key_id":${q(record.keyId)},` +
    `"occurred_at":"${occurredAt}","request_id":${q(text(record.requestId))},"seq":${seq},` +
    `"target":{"id":${q(text(record.target.id))},"type":${q(text(record.target.type) ?? '')}},"user_id":${q(record.userId)}}`
  );
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
