import { RateDecision, RateStanding, UsageBudget } from '../../src/application/ports/usage-budget.port';
import { RateLimit } from '../../src/domain/api-key';
import { InMemoryQuotaBalances } from './in-memory-quota-balances';

/** One replica's worth of the budget with no leases: fixed windows counted exactly, credits taken straight from the balances. */
export class InMemoryUsageBudget implements UsageBudget {
  private readonly counts = new Map<string, number>();

  constructor(readonly balances: InMemoryQuotaBalances = new InMemoryQuotaBalances()) {}

  async admitRequest(budgetId: string, { limit, windowSeconds }: RateLimit, now: Date): Promise<RateDecision> {
    const seconds = now.getTime() / 1000;
    const start = Math.floor(seconds / windowSeconds) * windowSeconds;
    const key = `${budgetId}/${windowSeconds}/${start}`;
    const used = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, used);
    const admitted = used <= limit;
    return {
      admitted,
      limit,
      windowSeconds,
      remaining: Math.max(0, limit - used),
      resetSeconds: Math.max(1, Math.ceil(start + windowSeconds - seconds)),
    };
  }

  async peekRate(budgetId: string, { limit, windowSeconds }: RateLimit, now: Date): Promise<RateStanding> {
    const seconds = now.getTime() / 1000;
    const start = Math.floor(seconds / windowSeconds) * windowSeconds;
    const used = this.counts.get(`${budgetId}/${windowSeconds}/${start}`) ?? 0;
    return {
      limit,
      windowSeconds,
      remaining: Math.max(0, limit - used),
      resetSeconds: Math.max(1, Math.ceil(start + windowSeconds - seconds)),
    };
  }

  async chargeToolCalls(budgetId: string, calls: number, now: Date): Promise<boolean> {
    return this.balances.take(budgetId, calls, now);
  }
}
