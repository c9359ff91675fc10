import { EntityManager } from 'typeorm';
import { QuotaBalances } from '../../../application/ports/quota-balances.port';
import { QuotaSetting, refillPeriodStart } from '../../../domain/api-key';
import { databaseCall } from '../database-unavailable';

/** How long a replica's report of unspent credits counts: past it the replica is taken for gone, and its credits with it. */
export const LEASE_REPORT_TTL_SECONDS = 5;

/** The balance a budget shows: the refill amount once one is due, else the stored credits plus those replicas hold unspent. */
export const BALANCE_SQL = `
  CASE WHEN q.refill_amount IS NOT NULL AND q.refilled_at < date_trunc(q.refill_interval, $2::timestamptz, 'UTC')
    THEN q.refill_amount
    ELSE q.remaining + COALESCE((
      SELECT sum(l.held) FROM key_quota_leases l
      WHERE l.budget_id = q.budget_id AND l.generation = q.generation
        AND l.reported_at > now() - interval '${LEASE_REPORT_TTL_SECONDS} seconds'), 0)
  END`;

/** key_quotas over an EntityManager (a transaction's, in the unit of work). */
export class TypeormQuotaBalances implements QuotaBalances {
  constructor(private readonly manager: EntityManager) {}

  async set(budgetId: string, quota: QuotaSetting, at: Date): Promise<void> {
    // A new generation: the key_quotas trigger tells every replica to drop the credits it holds.
    const since = quota.refill ? refillPeriodStart(quota.refill.interval, at) : at;
    await databaseCall(
      this.manager.query(
        `INSERT INTO key_quotas (budget_id, remaining, refill_amount, refill_interval, refilled_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (budget_id) DO UPDATE SET remaining = EXCLUDED.remaining, refill_amount = EXCLUDED.refill_amount,
         refill_interval = EXCLUDED.refill_interval, refilled_at = EXCLUDED.refilled_at, generation = nextval('key_quota_generations')`,
        [budgetId, quota.remaining, quota.refill?.amount ?? null, quota.refill?.interval ?? null, since.toISOString()],
      ),
    );
  }

  async remove(budgetId: string): Promise<void> {
    await databaseCall(this.manager.query('DELETE FROM key_quotas WHERE budget_id = $1', [budgetId]));
  }

  async read(budgetIds: readonly string[], at: Date): Promise<Map<string, number>> {
    if (budgetIds.length === 0) return new Map();
    const rows = await databaseCall(
      this.manager.query<{ budget_id: string; balance: string }[]>(
        `SELECT q.budget_id, ${BALANCE_SQL} AS balance FROM key_quotas q WHERE q.budget_id = ANY($1::uuid[])`,
        [budgetIds, at.toISOString()],
      ),
    );
    return new Map(rows.map((row) => [row.budget_id, Number(row.balance)]));
  }
}
