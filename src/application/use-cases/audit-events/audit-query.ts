import { Actor } from '../../../domain/actor';
import { AUDIT_ACTIONS, AuditAction, isAuditAction } from '../../../domain/audit';
import { ForbiddenError, ValidationError } from '../../../domain/errors';
import { AuditFilter } from '../../ports/audit-log.port';
import { parseFields, requireUuid } from '../guards';
import { isoInstant } from '../iso-instant';

/** What selects events, for the list and the export alike; every field optional. */
export interface AuditQueryInput {
  actor: Actor;
  action?: AuditAction;
  keyId?: string;
  /** A non-admin may name only themselves, and sees only their own events without it. */
  userId?: string;
  since?: string | Date;
  until?: string | Date;
}

/**
 * The filter as asked for: each field parsed (a wrong type, a repeated query
 * parameter, an unknown action, a bad UUID or time is a 400 naming it).
 */
export function parseAuditFilter(input: AuditQueryInput): AuditFilter {
  const filter = parseFields<AuditFilter>({
    action: optional(input.action, 'action', parseAction),
    keyId: optional(input.keyId, 'key_id', requireUuid),
    userId: optional(input.userId, 'user_id', requireUuid),
    since: optional(input.since, 'since', parseInstant),
    until: optional(input.until, 'until', parseInstant),
  });
  if (filter.since && filter.until && filter.since.getTime() > filter.until.getTime()) {
    throw ValidationError.single('since', 'must not be after until');
  }
  return filter;
}

/** The owner rule: an admin sees every event; anyone else only those about themselves. */
export function restrictToActor(filter: AuditFilter, actor: Actor): AuditFilter {
  if (actor.isAdmin) return filter;
  const self = actor.userId.toLowerCase();
  if (filter.userId !== undefined && filter.userId !== self) {
    throw new ForbiddenError("Only admins may read another user's audit events");
  }
  return { ...filter, userId: self };
}

/** A parser for a field that may be absent; a repeated query parameter arrives as an array and is refused. */
export function optional<T>(value: unknown, field: string, parse: (value: unknown, field: string) => T): (() => T) | undefined {
  if (value === undefined) return undefined;
  return () => {
    if (Array.isArray(value)) throw ValidationError.single(field, 'must be given once');
    return parse(value, field);
  };
}

function parseAction(value: unknown, field: string): AuditAction {
  if (!isAuditAction(value)) throw ValidationError.single(field, `must be a known audit action, such as ${AUDIT_ACTIONS[0]}`);
  return value;
}

function parseInstant(value: unknown, field: string): Date {
  const at = isoInstant(value);
  if (!at) throw ValidationError.single(field, 'must be an ISO-8601 timestamp with a time zone');
  return at;
}
