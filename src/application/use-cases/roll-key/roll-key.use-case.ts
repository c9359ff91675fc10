import { Actor, mayActFor } from '../../../domain/actor';
import { ApiKey, displayPrefixOf } from '../../../domain/api-key';
import { ConflictError, NotFoundError, ValidationError } from '../../../domain/errors';
import { NewApiKey, RetireKey } from '../../ports/api-key-repository.port';
import { Clock } from '../../ports/clock.port';
import { KeyGenerator } from '../../ports/key-generator.port';
import { KeyHasher } from '../../ports/key-hasher.port';
import { KeyPolicy } from '../../ports/key-policy.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { keyLimitReached } from '../create-key/create-key.use-case';
import { requireUuid } from '../guards';
import { keyEvent, keyFacts } from '../key-audit';

/** 30 days: the longest overlap a roll may leave. */
export const MAX_GRACE_SECONDS = 2_592_000;

export interface RollKeyInput {
  actor: Actor;
  id: string;
  /** How long the old key keeps working; 0 (the default) revokes it at once. */
  graceSeconds?: number;
}

export interface RollKeyOutput {
  key: ApiKey;
  rawKey: string;
  replaces: string;
  /** The shared budget's balance; null without a quota. */
  quotaRemaining: number | null;
}

/**
 * Replaces a key with a new one of the same attributes: name, scopes, expiry,
 * limits and any other its owner set (the new key draws on the old one's budget). The old
 * key is revoked at once, or left to expire at the end of the grace period
 * (never later than it would have anyway). A roll with a grace period is
 * held to MAX_KEYS_PER_USER like a create, since both keys work until it
 * ends; one without needs no room, the old key being revoked in the same step.
 */
export class RollKey {
  constructor(
    private readonly work: UnitOfWork,
    private readonly hasher: KeyHasher,
    private readonly generator: KeyGenerator,
    private readonly clock: Clock,
    private readonly policy: KeyPolicy,
  ) {}

  async execute(input: RollKeyInput): Promise<RollKeyOutput> {
    const id = requireUuid(input.id);
    const grace = parseGrace(input.graceSeconds);
    const rawKey = this.generator.generate();
    return this.work.run(async ({ keys, audit, quotas }) => {
      const old = await keys.findById(id);
      if (!old || old.revokedAt !== null || !mayActFor(input.actor, old.userId)) throw new NotFoundError('API key', id);
      const now = this.clock.now();
      if (old.replacedBy !== null) throw new ConflictError(`API key ${id} was already rolled; roll ${old.replacedBy} instead`);
      if (old.stateAt(now) === 'expired') throw new ConflictError(`API key ${id} has expired; create a new key instead`);
      const successor: NewApiKey = {
        ...old.attributes,
        userId: old.userId,
        keyPrefix: displayPrefixOf(rawKey),
        keyHash: this.hasher.hash(rawKey),
        createdAt: now,
        // One budget for the chain: during the overlap both keys draw on one rate window and one balance.
        budgetId: old.budgetId,
      };
      const key = grace === 0 ? await keys.insert(successor) : await keys.insertWithinLimit(successor, this.policy.maxKeysPerUser);
      if (!key) throw keyLimitReached(old.userId, this.policy.maxKeysPerUser);
      const retired = await keys.markReplaced(id, key.id, retirement(old, now, grace));
      // Another roll or a revoke got there first, between the read and this write.
      if (!retired) throw new ConflictError(`API key ${id} changed while it was being rolled; try again`);
      await audit.append([
        keyEvent('key.created', input.actor, key, now, { ...keyFacts(key), replaces: id }),
        keyEvent('key.rolled', input.actor, retired, now, {
          replaced_by: key.id,
          grace_seconds: grace,
          old_key_ends_at: (retired.revokedAt ?? retired.expiresAt ?? now).toISOString(),
        }),
      ]);
      const balance = key.quota ? ((await quotas.read([key.budgetId], now)).get(key.budgetId) ?? 0) : null;
      return { key, rawKey, replaces: id, quotaRemaining: balance };
    });
  }
}

function parseGrace(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_GRACE_SECONDS) {
    throw ValidationError.single('grace_seconds', `must be an integer from 0 to ${MAX_GRACE_SECONDS}`);
  }
  return value;
}

function retirement(old: ApiKey, now: Date, graceSeconds: number): RetireKey {
  if (graceSeconds === 0) return { revokedAt: now };
  const end = new Date(now.getTime() + graceSeconds * 1000);
  return { expiresAt: old.expiresAt && old.expiresAt < end ? old.expiresAt : end };
}
