import { Actor, mayActFor } from '../../../domain/actor';
import { ApiKey } from '../../../domain/api-key';
import { ForbiddenError } from '../../../domain/errors';
import { ApiKeyRepository } from '../../ports/api-key-repository.port';
import { Clock } from '../../ports/clock.port';
import { QuotaBalances } from '../../ports/quota-balances.port';
import { parseUserId } from '../create-key/create-key.use-case';

export interface ListKeysInput {
  actor: Actor;
  userId?: string | null;
}

export interface ListedKey {
  key: ApiKey;
  /** The budget's current balance; null for a key without a quota. */
  quotaRemaining: number | null;
}

/**
 * A user's non-revoked keys, expired ones included, newest first; a rolled key
 * is listed until its overlap ends, then left out like a revoked one. A key
 * with a quota shows its budget's balance, credits replicas hold unspent
 * included (as of their last report, at most a second or two old).
 */
export class ListKeys {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly quotas: QuotaBalances,
    private readonly clock: Clock,
  ) {}

  async execute(input: ListKeysInput): Promise<ListedKey[]> {
    const userId = parseUserId(input.userId, input.actor);
    if (!mayActFor(input.actor, userId)) {
      throw new ForbiddenError("Only admins may list another user's keys");
    }
    const now = this.clock.now();
    const keys = (await this.keys.listNonRevokedByUser(userId)).filter((key) => key.replacedBy === null || key.isUsableAt(now));
    const budgets = [...new Set(keys.filter((key) => key.quota !== null).map((key) => key.budgetId))];
    const balances = budgets.length > 0 ? await this.quotas.read(budgets, now) : new Map<string, number>();
    return keys.map((key) => ({ key, quotaRemaining: key.quota ? (balances.get(key.budgetId) ?? 0) : null }));
  }
}
