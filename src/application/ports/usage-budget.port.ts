import { RateLimit } from '../../domain/api-key';

/** Where a key's current rate window stands after a request was counted. */
export interface RateDecision {
  admitted: boolean;
  limit: number;
  windowSeconds: number;
  /** Requests still admitted in this window, as this replica knows it; never negative. */
  remaining: number;
  /** Whole seconds until the window ends. */
  resetSeconds: number;
}

/** Where a key's current rate window stands, read without counting anything (explain). */
export type RateStanding = Omit<RateDecision, 'admitted'>;

/**
 * A budget's rate windows and quota balance as the /mcp hot path draws on
 * them. One budget is shared by every replica (and by the keys of a roll
 * chain): an implementation must never admit more tool calls than the
 * balance holds, whichever replica serves them.
 */
export interface UsageBudget {
  /** Counts one request against the budget's current window. */
  admitRequest(budgetId: string, limit: RateLimit, now: Date): Promise<RateDecision>;
  /**
   * The current window as it stands, counting nothing: `remaining` is what the
   * window has not handed out to any replica, plus what this replica holds
   * unspent (shares other replicas hold unspent are not known here).
   */
  peekRate(budgetId: string, limit: RateLimit, now: Date): Promise<RateStanding>;
  /** Takes `calls` credits (all or none); false when the balance cannot cover them. */
  chargeToolCalls(budgetId: string, calls: number, now: Date): Promise<boolean>;
}
