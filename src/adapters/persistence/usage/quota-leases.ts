import { DataSource } from 'typeorm';
import { nextRefillAt, RefillInterval } from '../../../domain/api-key';
import { databaseCall } from '../database-unavailable';

/** Most credits one lease takes: bounds what a replica that dies may take with it. */
const MAX_GRANT = 1000;
/** A lease takes about 1/32 of the balance, so near the end grants shrink to 1 and no replica sits on credits another needs. */
const GRANT_DIVISOR = 32;
/** After a refusal, how long this replica answers from memory instead of asking again (a PATCH or a refill clears it sooner). */
const REFUSAL_MEMORY_MS = 100;

interface Lease {
  generation: string;
  held: number;
  /** Credits granted before a refill are void from it on (ms since the epoch; Infinity without a refill). */
  expiresAt: number;
  lastUsedAt: number;
}

interface Grant {
  present: boolean;
  granted: number;
  generation: string | null;
  refillInterval: RefillInterval | null;
}

/**
 * The quota half of the budget: credits are taken from PostgreSQL in leases
 * with one atomic statement (which also applies a due refill), spent from
 * memory, and handed back when idle or at shutdown. Credits are only spent
 * once granted, so a balance of N admits at most N calls whatever the
 * number of replicas.
 */
export class QuotaLeases {
  private readonly leases = new Map<string, Lease>();
  private readonly acquiring = new Map<string, Promise<Grant>>();
  /** Per budget, the smallest need PostgreSQL refused lately, and until when that is remembered. */
  private readonly refused = new Map<string, { need: number; until: number }>();

  constructor(
    private readonly dataSource: DataSource,
    readonly replicaId: string,
    private readonly wallClock: () => number = Date.now,
  ) {}

  async charge(budgetId: string, calls: number, now: Date): Promise<boolean> {
    for (;;) {
      const lease = this.current(budgetId, now);
      if (lease && lease.held >= calls) {
        lease.held -= calls;
        lease.lastUsedAt = this.wallClock();
        return true;
      }
      const need = calls - (lease?.held ?? 0);
      const refusal = this.refused.get(budgetId);
      if (refusal && refusal.until > this.wallClock() && need >= refusal.need) return false;
      const pending = this.acquiring.get(budgetId);
      if (pending) {
        await pending.catch(() => undefined);
        continue;
      }
      const grant = this.acquire(budgetId, need, now);
      this.acquiring.set(budgetId, grant);
      let result: Grant;
      try {
        result = await grant;
      } finally {
        this.acquiring.delete(budgetId);
      }
      if (!result.present) return true; // the quota was removed: nothing to count against
      if (result.granted === 0) {
        this.refused.set(budgetId, {
          need: Math.min(need, refusal && refusal.until > this.wallClock() ? refusal.need : need),
          until: this.wallClock() + REFUSAL_MEMORY_MS,
        });
        return false;
      }
      this.add(budgetId, result, now);
    }
  }

  /** Drops what this replica holds of a budget (`*`: of every budget), unspent and unreturned: its balance was set anew. */
  drop(budgetId: string): void {
    if (budgetId === '*') {
      this.leases.clear();
      this.refused.clear();
      return;
    }
    this.leases.delete(budgetId);
    this.refused.delete(budgetId);
  }

  /** Hands back every lease unused since `idleMs` ago (all of them with 0), then reports what is still held. */
  async settle(idleMs: number, now: Date): Promise<void> {
    const cutoff = this.wallClock() - idleMs;
    for (const [budgetId, lease] of this.leases) {
      if (lease.lastUsedAt > cutoff || this.acquiring.has(budgetId)) continue;
      this.leases.delete(budgetId);
      if (lease.held > 0 && lease.expiresAt > now.getTime()) await this.giveBack(budgetId, lease);
    }
    for (const [budgetId, { until }] of this.refused) if (until <= this.wallClock()) this.refused.delete(budgetId);
    await this.report();
  }

  /** The credits held per budget, for tests and metrics. */
  held(budgetId: string): number {
    return this.leases.get(budgetId)?.held ?? 0;
  }

  private reported = false;

  /** One statement for every budget this replica holds credits of; nothing at all while it holds none. */
  private async report(): Promise<void> {
    const held = [...this.leases].filter(([, lease]) => lease.held > 0);
    if (held.length === 0 && !this.reported) return;
    await databaseCall(
      this.dataSource.query(
        `WITH gone AS (DELETE FROM key_quota_leases WHERE replica_id = $1 AND NOT (budget_id = ANY($2::uuid[])))
       INSERT INTO key_quota_leases (replica_id, budget_id, generation, held, reported_at)
       SELECT $1, v.budget_id, v.generation, v.held, now() FROM unnest($2::uuid[], $3::bigint[], $4::bigint[]) AS v(budget_id, generation, held)
       ON CONFLICT (budget_id, replica_id) DO UPDATE SET generation = EXCLUDED.generation, held = EXCLUDED.held, reported_at = EXCLUDED.reported_at`,
        [this.replicaId, held.map(([id]) => id), held.map(([, l]) => l.generation), held.map(([, l]) => l.held)],
      ),
    );
    this.reported = held.length > 0;
  }

  private current(budgetId: string, now: Date): Lease | undefined {
    const lease = this.leases.get(budgetId);
    if (lease && lease.expiresAt <= now.getTime()) {
      this.leases.delete(budgetId);
      return undefined;
    }
    return lease;
  }

  private add(budgetId: string, grant: Grant, now: Date): void {
    const lease = this.current(budgetId, now);
    const expiresAt = grant.refillInterval ? nextRefillAt(grant.refillInterval, now).getTime() : Infinity;
    if (lease && lease.generation === grant.generation) {
      lease.held += grant.granted;
      return;
    }
    // A new generation (a refill or a PATCH since): what was held of the old one is void.
    this.leases.set(budgetId, { generation: grant.generation!, held: grant.granted, expiresAt, lastUsedAt: this.wallClock() });
  }

  private async acquire(budgetId: string, need: number, now: Date): Promise<Grant> {
    const [row] = await databaseCall(
      this.dataSource.query<
        { present: number; granted: string | null; generation: string | null; refill_interval: RefillInterval | null }[]
      >(
        `WITH cur AS (
         SELECT budget_id, refill_interval,
           (refill_amount IS NOT NULL AND refilled_at < date_trunc(refill_interval, $2::timestamptz, 'UTC')) AS due,
           CASE WHEN refill_amount IS NOT NULL AND refilled_at < date_trunc(refill_interval, $2::timestamptz, 'UTC')
             THEN refill_amount ELSE remaining END AS balance
         FROM key_quotas WHERE budget_id = $1 FOR UPDATE
       ), g AS (
         SELECT cur.*, LEAST(cur.balance, GREATEST($3::bigint, LEAST($4::bigint, CEIL(cur.balance / ${GRANT_DIVISOR}.0)::bigint))) AS n
         FROM cur WHERE cur.balance >= $3::bigint
       ), upd AS (
         UPDATE key_quotas q SET remaining = g.balance - g.n,
           refilled_at = CASE WHEN g.due THEN date_trunc(g.refill_interval, $2::timestamptz, 'UTC') ELSE q.refilled_at END,
           generation = CASE WHEN g.due THEN nextval('key_quota_generations') ELSE q.generation END
         FROM g WHERE q.budget_id = g.budget_id
         RETURNING g.n AS granted, q.generation::text AS generation, q.refill_interval
       )
       SELECT (SELECT count(*) FROM cur)::int AS present, upd.granted, upd.generation, upd.refill_interval
       FROM (SELECT 1) AS one LEFT JOIN upd ON true`,
        [budgetId, now.toISOString(), need, MAX_GRANT],
      ),
    );
    return {
      present: row.present > 0,
      granted: Number(row.granted ?? 0),
      generation: row.generation,
      refillInterval: row.refill_interval,
    };
  }

  private async giveBack(budgetId: string, lease: Lease): Promise<void> {
    // Only into the generation they came from: after a PATCH or a refill they are void.
    await databaseCall(
      this.dataSource.query(
        `WITH back AS (UPDATE key_quotas SET remaining = remaining + $3 WHERE budget_id = $1 AND generation = $2::bigint RETURNING 1),
            gone AS (DELETE FROM key_quota_leases WHERE budget_id = $1 AND replica_id = $4 RETURNING 1)
       SELECT (SELECT count(*) FROM back) AS back`,
        [budgetId, lease.generation, lease.held, this.replicaId],
      ),
    );
  }
}
