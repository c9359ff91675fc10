import { Actor, mayActFor } from '../../../domain/actor';
import {
  ApiKey,
  displayPrefixOf,
  parseQuota,
  parseRateLimit,
  plainAttributeParsers,
  PlainKeyAttributes,
  PlainKeyAttributesInput,
  QuotaSetting,
  RateLimit,
} from '../../../domain/api-key';
import { ConflictError, ForbiddenError, ValidationError } from '../../../domain/errors';
import { ScopeSet } from '../../../domain/scope';
import { Clock } from '../../ports/clock.port';
import { KeyGenerator } from '../../ports/key-generator.port';
import { KeyHasher } from '../../ports/key-hasher.port';
import { KeyPolicy } from '../../ports/key-policy.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { keyEvent, keyFacts } from '../key-audit';
import { parseFields, requireUuid } from '../guards';
import { isoInstant } from '../iso-instant';

/** The plain attributes (name, ...) as the domain declares them, then the fields with behaviour of their own. */
export type CreateKeyInput = PlainKeyAttributesInput & {
  actor: Actor;
  userId?: string | null;
  expiresAt?: string | Date | null;
  scopes?: readonly string[];
  /** null or absent: unlimited. */
  rateLimit?: { limit: number; window_seconds: number } | null;
  /** null or absent: no quota. */
  quota?: { remaining: number; refill?: { amount: number; interval: string } | null } | null;
};

export interface CreateKeyOutput {
  key: ApiKey;
  /** The quota balance it starts with; null without a quota. */
  quotaRemaining: number | null;
  /** The only time the raw key exists outside the caller's hands. */
  rawKey: string;
}

export class CreateKey {
  constructor(
    private readonly work: UnitOfWork,
    private readonly hasher: KeyHasher,
    private readonly generator: KeyGenerator,
    private readonly clock: Clock,
    private readonly policy: KeyPolicy,
  ) {}

  async execute(input: CreateKeyInput): Promise<CreateKeyOutput> {
    const now = this.clock.now();
    const { userId, quota, ...attributes } = this.parse(input, now);
    if (!mayActFor(input.actor, userId)) {
      throw new ForbiddenError('Only admins may create keys for another user');
    }
    const rawKey = this.generator.generate();
    const key = await this.work.run(async ({ keys, audit, quotas }) => {
      const stored = await keys.insertWithinLimit(
        {
          ...attributes,
          userId,
          keyPrefix: displayPrefixOf(rawKey),
          keyHash: this.hasher.hash(rawKey),
          createdAt: now,
          quota: quota ? { refill: quota.refill } : null,
        },
        this.policy.maxKeysPerUser,
      );
      if (!stored) return null;
      if (quota) await quotas.set(stored.budgetId, quota, now);
      await audit.append([
        keyEvent('key.created', input.actor, stored, now, { ...keyFacts(stored), ...(quota ? { quota_remaining: quota.remaining } : {}) }),
      ]);
      return stored;
    });
    if (!key) throw keyLimitReached(userId, this.policy.maxKeysPerUser);
    return { key, rawKey, quotaRemaining: quota ? quota.remaining : null };
  }

  private parse(input: CreateKeyInput, now: Date) {
    return parseFields<
      PlainKeyAttributes & {
        userId: string;
        expiresAt: Date | null;
        scopes: ScopeSet;
        rateLimit: RateLimit | null;
        quota: QuotaSetting | null;
      }
    >({
      ...plainAttributeParsers(input, false),
      userId: () => parseUserId(input.userId, input.actor),
      expiresAt: () => parseExpiry(input.expiresAt, now),
      scopes: () => ScopeSet.parse(input.scopes ?? [], 'scopes'),
      rateLimit: () => (input.rateLimit === undefined ? null : parseRateLimit(input.rateLimit)),
      quota: () => (input.quota === undefined ? null : parseQuota(input.quota)),
    });
  }
}

/** The one answer when a create or a roll would take a user past MAX_KEYS_PER_USER. */
export function keyLimitReached(userId: string, max: number): ConflictError {
  return new ConflictError(`User ${userId} already holds ${max} non-revoked keys (expired ones count); revoke one first`);
}

export function parseUserId(value: unknown, actor: Actor): string {
  if (value === undefined || value === null) return actor.userId;
  return requireUuid(value, 'user_id');
}

export function parseExpiry(value: unknown, now: Date): Date | null {
  if (value === undefined || value === null) return null;
  return future(isoInstant(value), now);
}

function future(at: Date | null, now: Date): Date {
  if (!at) throw ValidationError.single('expires_at', 'must be an ISO-8601 timestamp with a time zone, or null');
  if (at.getTime() <= now.getTime()) throw ValidationError.single('expires_at', 'must be in the future');
  return at;
}
