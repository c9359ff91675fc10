import { Actor, mayActFor } from '../../../domain/actor';
import {
  ApiKey,
  parseQuota,
  parseRateLimit,
  PLAIN_KEY_ATTRIBUTES,
  plainAttributeParsers,
  PlainKeyAttributesInput,
  QuotaSetting,
} from '../../../domain/api-key';
import { AuditValue } from '../../../domain/audit';
import { ConflictError, NotFoundError, ValidationError } from '../../../domain/errors';
import { ScopeSet } from '../../../domain/scope';
import { ApiKeyChanges } from '../../ports/api-key-repository.port';
import { Clock } from '../../ports/clock.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { parseExpiry } from '../create-key/create-key.use-case';
import { parseFields, requireUuid } from '../guards';
import { attributeFacts, keyEvent, snakeCase } from '../key-audit';

/** Any of the plain attributes (name, ...) as the domain declares them, and of the fields with behaviour of their own. */
export type UpdateKeyInput = Partial<PlainKeyAttributesInput> & {
  actor: Actor;
  id: string;
  /** The new scopes in full; [] means full access, as at create. */
  scopes?: readonly string[];
  /** null removes the expiry. */
  expiresAt?: string | Date | null;
  /** null removes the rate limit. */
  rateLimit?: { limit: number; window_seconds: number } | null;
  /** Sets the balance and the refill; null removes the quota. */
  quota?: { remaining: number; refill?: { amount: number; interval: string } | null } | null;
};

export interface UpdateKeyOutput {
  key: ApiKey;
  /** The budget's balance after the change; null without a quota. */
  quotaRemaining: number | null;
}

const FIELDS = `${[...Object.keys(PLAIN_KEY_ATTRIBUTES).map(snakeCase), 'scopes', 'expires_at', 'rate_limit'].join(', ')} or quota`;

/**
 * Changes a key's name, scopes, expiry or limits. Every replica drops the
 * cached key when the row changes, so narrowed scopes and new limits take
 * effect at once everywhere. A quota given here sets the balance, over any
 * credits replicas hold. A rolled key cannot be edited: its successor is
 * the key to change, and a later expiry would revive a key the roll retired
 * (and take its user past MAX_KEYS_PER_USER).
 */
export class UpdateKey {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: UpdateKeyInput): Promise<UpdateKeyOutput> {
    const id = requireUuid(input.id);
    const now = this.clock.now();
    const { quota, ...fields } = parseFields<Omit<ApiKeyChanges, 'quota'> & { quota?: QuotaSetting | null }>({
      ...plainAttributeParsers(input, true),
      scopes: input.scopes === undefined ? undefined : () => parseScopes(input.scopes),
      expiresAt: input.expiresAt === undefined ? undefined : () => parseExpiry(input.expiresAt, now),
      rateLimit: input.rateLimit === undefined ? undefined : () => parseRateLimit(input.rateLimit),
      quota: input.quota === undefined ? undefined : () => parseQuota(input.quota),
    });
    const changes: ApiKeyChanges = fields;
    if (quota !== undefined) changes.quota = quota && { refill: quota.refill };
    if (Object.keys(changes).length === 0) throw ValidationError.single('body', `${FIELDS} is required`);
    return this.work.run(async ({ keys, audit, quotas }) => {
      const key = await keys.findById(id);
      if (!key || key.revokedAt !== null || !mayActFor(input.actor, key.userId)) throw new NotFoundError('API key', id);
      if (key.replacedBy !== null) throw rolledKey(id, key.replacedBy);
      const updated = await keys.update(id, changes);
      // A roll or a revoke got there first, between the read and this write.
      if (!updated) throw new ConflictError(`API key ${id} changed while it was being edited; try again`);
      if (quota) await quotas.set(updated.budgetId, quota, now);
      else if (quota === null) await quotas.remove(updated.budgetId);
      const details: { [field: string]: AuditValue } = { changed: changedFacts(key, updated, quota !== undefined) };
      if (quota) details.quota_remaining = quota.remaining;
      await audit.append([keyEvent('key.updated', input.actor, updated, now, details)]);
      const balance = updated.quota ? ((await quotas.read([updated.budgetId], now)).get(updated.budgetId) ?? 0) : null;
      return { key: updated, quotaRemaining: balance };
    });
  }
}

function rolledKey(id: string, successor: string): ConflictError {
  return new ConflictError(`API key ${id} was rolled and cannot be edited; edit its replacement ${successor} instead`);
}

/** The attributes whose value changed, with their new value; a quota given again counts (its balance was set). */
function changedFacts(before: ApiKey, after: ApiKey, quotaSet: boolean): { [field: string]: AuditValue } {
  const was = attributeFacts(before);
  const now = attributeFacts(after);
  const changed: { [field: string]: AuditValue } = {};
  for (const field of Object.keys(now)) {
    const set = field === 'quota' && quotaSet;
    if (set || JSON.stringify(now[field]) !== JSON.stringify(was[field])) changed[field] = now[field];
  }
  return changed;
}

/** Unlike at create, null is refused: it would quietly widen the key to full access. */
function parseScopes(value: unknown): ScopeSet {
  if (value === null) throw ValidationError.single('scopes', 'must be an array of scope strings ([] means full access)');
  return ScopeSet.parse(value, 'scopes');
}
