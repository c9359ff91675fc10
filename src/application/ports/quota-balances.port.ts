import { QuotaSetting } from '../../domain/api-key';

/** The quota balances of budgets, as the key API sets and lists them. */
export interface QuotaBalances {
  /**
   * Sets the balance and the refill; wins over credits replicas already
   * hold (they drop them). The next refill falls due at the start of the
   * period after `at`.
   */
  set(budgetId: string, quota: QuotaSetting, at: Date): Promise<void>;
  /** Removes the budget's balance: its keys have no quota any more. */
  remove(budgetId: string): Promise<void>;
  /**
   * The current balance of each budget that has one: stored credits plus
   * those replicas hold unspent (as they last reported them), or the refill
   * amount when a refill is due at `at`.
   */
  read(budgetIds: readonly string[], at: Date): Promise<Map<string, number>>;
}
