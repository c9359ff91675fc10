import { Actor, mayActFor } from '../../../domain/actor';
import { ApiKey, displayPrefixOf, parseKeyName } from '../../../domain/api-key';
import { ConflictError, ForbiddenError, ValidationError } from '../../../domain/errors';
import { ScopeSet } from '../../../domain/scope';
import { Clock } from '../../ports/clock.port';
import { KeyGenerator } from '../../ports/key-generator.port';
import { KeyHasher } from '../../ports/key-hasher.port';
import { KeyPolicy } from '../../ports/key-policy.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { keyEvent, keyFacts } from '../key-audit';
import { parseFields, requireUuid } from '../guards';

export interface CreateKeyInput {
  actor: Actor;
  name: string;
  userId?: string | null;
  expiresAt?: string | Date | null;
  scopes?: readonly string[];
}

export interface CreateKeyOutput {
  key: ApiKey;
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
    const { name, userId, expiresAt, scopes } = this.parse(input, now);
    if (!mayActFor(input.actor, userId)) {
      throw new ForbiddenError('Only admins may create keys for another user');
    }
    const rawKey = this.generator.generate();
    const key = await this.work.run(async ({ keys, audit }) => {
      const stored = await keys.insertWithinLimit(
        { name, userId, scopes, expiresAt, keyPrefix: displayPrefixOf(rawKey), keyHash: this.hasher.hash(rawKey), createdAt: now },
        this.policy.maxKeysPerUser,
      );
      if (stored) await audit.append([keyEvent('key.created', input.actor, stored, now, keyFacts(stored))]);
      return stored;
    });
    if (!key) {
      throw new ConflictError(`User ${userId} already holds ${this.policy.maxKeysPerUser} non-revoked keys (expired ones count); revoke one first`);
    }
    return { key, rawKey };
  }

  private parse(input: CreateKeyInput, now: Date) {
    return parseFields<{ name: string; userId: string; expiresAt: Date | null; scopes: ScopeSet }>({
      name: () => parseKeyName(input.name),
      userId: () => parseUserId(input.userId, input.actor),
      expiresAt: () => parseExpiry(input.expiresAt, now),
      scopes: () => ScopeSet.parse(input.scopes ?? [], 'scopes'),
    });
  }
}

export function parseUserId(value: unknown, actor: Actor): string {
  if (value === undefined || value === null) return actor.userId;
  return requireUuid(value, 'user_id');
}

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/** Date.parse quietly rolls 2027-02-30 over to March; a real calendar day is required. */
function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function parseExpiry(value: unknown, now: Date): Date | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return future(Number.isNaN(value.getTime()) ? null : new Date(value.getTime()), now);
  const match = typeof value === 'string' ? ISO_8601.exec(value) : null;
  const at = match && isCalendarDate(+match[1], +match[2], +match[3]) ? new Date(match[0]) : null;
  return future(at && !Number.isNaN(at.getTime()) ? at : null, now);
}

function future(at: Date | null, now: Date): Date {
  if (!at) throw ValidationError.single('expires_at', 'must be an ISO-8601 timestamp with a time zone, or null');
  if (at.getTime() <= now.getTime()) throw ValidationError.single('expires_at', 'must be in the future');
  return at;
}
