import { Actor, mayActFor } from '../../../domain/actor';
import { NotFoundError } from '../../../domain/errors';
import { ApiKeyRepository } from '../../ports/api-key-repository.port';
import { Clock } from '../../ports/clock.port';
import { QuotaBalances } from '../../ports/quota-balances.port';
import { requireUuid } from '../guards';
import { ListedKey } from '../list-keys/list-keys.use-case';

export interface GetKeyInput {
  actor: Actor;
  id: string;
}

/**
 * One key as the list shows it, by id. Unlike the list it also finds a
 * revoked key or a rolled one past its overlap (`revoked_at`, `replaced_by`
 * say so): its owner still reads its audit trail. Another user's key is 404
 * for a non-admin, like an unknown id, so ids cannot be probed.
 */
export class GetKey {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly quotas: QuotaBalances,
    private readonly clock: Clock,
  ) {}

  async execute(input: GetKeyInput): Promise<ListedKey> {
    const id = requireUuid(input.id);
    const key = await this.keys.findById(id);
    if (!key || !mayActFor(input.actor, key.userId)) throw new NotFoundError('API key', id);
    if (!key.quota) return { key, quotaRemaining: null };
    const balances = await this.quotas.read([key.budgetId], this.clock.now());
    return { key, quotaRemaining: balances.get(key.budgetId) ?? 0 };
  }
}
