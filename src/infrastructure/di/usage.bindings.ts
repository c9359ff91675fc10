import { randomUUID } from 'node:crypto';
import { Container } from 'inversify';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { Clock } from '../../application/ports/clock.port';
import { QuotaBalances } from '../../application/ports/quota-balances.port';
import { UsageBudget } from '../../application/ports/usage-budget.port';
import { AdmitRequest } from '../../application/use-cases/usage-limits/admit-request.use-case';
import { ChargeToolCalls } from '../../application/use-cases/usage-limits/charge-tool-calls.use-case';
import { UsageGate } from '../../adapters/edge/usage-gate';
import { Metrics } from '../../adapters/observability/metrics';
import { PostgresUsageBudget } from '../../adapters/persistence/usage/postgres-usage-budget';
import { QuotaLeases } from '../../adapters/persistence/usage/quota-leases';
import { RateWindows } from '../../adapters/persistence/usage/rate-windows';
import { TypeormQuotaBalances } from '../../adapters/persistence/usage/typeorm-quota-balances';
import { TOKENS } from './tokens';

/**
 * Keys' rate limits and quotas: the PostgreSQL lease budget (which the
 * container's Lifecycle starts and, before the pool closes, settles, and to
 * which the change listener delivers PATCHes and refills), the use-cases the
 * /mcp edge calls, and the balances the key API sets and lists.
 */
export function bindUsage(c: Container): void {
  c.bind(PostgresUsageBudget).toResolvedValue(
    (ds: DataSource, clock: Clock, logger: Logger) => new PostgresUsageBudget(
      new QuotaLeases(ds, randomUUID()), new RateWindows(ds), clock, undefined,
      (message, error) => logger.warn({ err: error }, message),
    ),
    [TOKENS.DataSource, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind<UsageBudget>(TOKENS.UsageBudget).toService(PostgresUsageBudget);
  c.bind<QuotaBalances>(TOKENS.QuotaBalances).toResolvedValue((ds: DataSource) => new TypeormQuotaBalances(ds.manager), [TOKENS.DataSource]);
  c.bind(AdmitRequest).toResolvedValue((budget: UsageBudget, clock: Clock) => new AdmitRequest(budget, clock), [TOKENS.UsageBudget, TOKENS.Clock]);
  c.bind(ChargeToolCalls).toResolvedValue((budget: UsageBudget, clock: Clock) => new ChargeToolCalls(budget, clock), [TOKENS.UsageBudget, TOKENS.Clock]);
  c.bind(UsageGate).toResolvedValue(
    (admit: AdmitRequest, charge: ChargeToolCalls, metrics: Metrics) => new UsageGate({
      admit, charge, refused: (kind) => (kind === 'rate_limited' ? metrics.rateLimited : metrics.quotaExhausted).inc(),
    }),
    [AdmitRequest, ChargeToolCalls, TOKENS.Metrics],
  );
}
