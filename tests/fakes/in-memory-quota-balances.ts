import { QuotaBalances } from '../../src/application/ports/quota-balances.port';
import { QuotaSetting, refillPeriodStart } from '../../src/domain/api-key';

interface Balance {
  setting: QuotaSetting;
  remaining: number;
  refilledAt: Date;
}

/** Quota balances in a Map, refill applied on read as PostgreSQL applies it; `take` stands in for the leases. */
export class InMemoryQuotaBalances implements QuotaBalances {
  readonly balances = new Map<string, Balance>();

  async set(budgetId: string, quota: QuotaSetting, at: Date): Promise<void> {
    this.balances.set(budgetId, {
      setting: quota,
      remaining: quota.remaining,
      refilledAt: quota.refill ? refillPeriodStart(quota.refill.interval, at) : at,
    });
  }

  async remove(budgetId: string): Promise<void> {
    this.balances.delete(budgetId);
  }

  async read(budgetIds: readonly string[], at: Date): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const id of budgetIds) {
      const balance = this.balances.get(id);
      if (balance) out.set(id, this.current(balance, at));
    }
    return out;
  }

  /** Takes `calls` credits, all or none; true when the budget has no balance at all. */
  take(budgetId: string, calls: number, at: Date): boolean {
    const balance = this.balances.get(budgetId);
    if (!balance) return true;
    const refill = balance.setting.refill;
    if (refill && this.current(balance, at) !== balance.remaining) {
      balance.remaining = refill.amount;
      balance.refilledAt = refillPeriodStart(refill.interval, at);
    }
    if (balance.remaining < calls) return false;
    balance.remaining -= calls;
    return true;
  }

  private current(balance: Balance, at: Date): number {
    const refill = balance.setting.refill;
    if (refill && balance.refilledAt < refillPeriodStart(refill.interval, at)) return refill.amount;
    return balance.remaining;
  }
}
