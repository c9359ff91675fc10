import { RateDecision, RateStanding, UsageBudget } from '../../../application/ports/usage-budget.port';
import { Clock } from '../../../application/ports/clock.port';
import { RateLimit } from '../../../domain/api-key';
import { NotifiedCache } from '../hot-path/change-listener';
import { QuotaLeases } from './quota-leases';
import { RateWindows } from './rate-windows';

/** key_quotas' trigger (migration 1763900000008) names the budget whose balance was set, removed or refilled. */
export const QUOTA_CHANGES_CHANNEL = 'keygate_quota_changed';

export interface UsageBudgetTimings {
  /** How often idle leases go back and held credits are reported (the key list is at most about this much behind). */
  settleMs: number;
  /** A lease unused this long goes back to PostgreSQL. */
  idleMs: number;
  /** How often ended rate windows are deleted. */
  pruneMs: number;
}

const DEFAULT_TIMINGS: UsageBudgetTimings = { settleMs: 1000, idleMs: 1000, pruneMs: 60_000 };

/**
 * UsageBudget over PostgreSQL alone (no Redis: the embedded default is
 * PostgreSQL anyway, and one store means one way to fail). The request path
 * writes only when a lease or a share runs out; a timer hands idle credits
 * back and reports those held, in one statement a second. PATCHes and
 * refills reach it as NOTIFY through the change listener, which drops the
 * credits held of that budget; while the listener is down, it drops them all
 * when it is back.
 */
export class PostgresUsageBudget implements UsageBudget, NotifiedCache {
  readonly channel = QUOTA_CHANGES_CHANNEL;
  private settleTimer: NodeJS.Timeout | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;
  private settling: Promise<void> | null = null;

  constructor(
    readonly quotas: QuotaLeases,
    readonly rates: RateWindows,
    private readonly clock: Clock,
    private readonly timings: UsageBudgetTimings = DEFAULT_TIMINGS,
    private readonly log: (message: string, error: unknown) => void = () => undefined,
  ) {}

  admitRequest(budgetId: string, limit: RateLimit, now: Date): Promise<RateDecision> {
    return this.rates.admit(budgetId, limit, now);
  }

  peekRate(budgetId: string, limit: RateLimit, now: Date): Promise<RateStanding> {
    return this.rates.peek(budgetId, limit, now);
  }

  chargeToolCalls(budgetId: string, calls: number, now: Date): Promise<boolean> {
    return this.quotas.charge(budgetId, calls, now);
  }

  evict(budgetId: string): void {
    this.quotas.drop(budgetId);
  }

  enable(): void {
    this.quotas.drop('*');
  }

  disable(): void {
    this.quotas.drop('*');
  }

  start(): void {
    if (this.settleTimer) return;
    this.settleTimer = setInterval(() => void this.settle(this.timings.idleMs), this.timings.settleMs);
    this.settleTimer.unref();
    this.pruneTimer = setInterval(
      () => void this.rates.prune(this.clock.now()).catch((e: unknown) => this.log('pruning rate windows failed', e)),
      this.timings.pruneMs,
    );
    this.pruneTimer.unref();
  }

  /** Stops the timers and hands back every credit held, before the pool closes. */
  async stop(): Promise<void> {
    if (this.settleTimer) clearInterval(this.settleTimer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    this.settleTimer = this.pruneTimer = null;
    await this.settle(0);
  }

  /** Hands back leases idle for `idleMs` and reports the rest; one run at a time. */
  async settle(idleMs: number): Promise<void> {
    while (this.settling) await this.settling;
    this.settling = (async () => {
      const now = this.clock.now();
      this.rates.sweep(now);
      await this.quotas.settle(idleMs, now).catch((e: unknown) => this.log('handing back quota credits failed', e));
    })();
    try {
      await this.settling;
    } finally {
      this.settling = null;
    }
  }
}
