import { Container } from 'inversify';
import { randomUUID } from 'node:crypto';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AuditEventReader, AuditQueue } from '../../application/ports/audit-log.port';
import { Clock } from '../../application/ports/clock.port';
import { QuotaBalances } from '../../application/ports/quota-balances.port';
import { UsageBudget } from '../../application/ports/usage-budget.port';
import { ExportAuditEvents } from '../../application/use-cases/audit-events/export-audit-events.use-case';
import { ListAuditEvents } from '../../application/use-cases/audit-events/list-audit-events.use-case';
import { AdmitRequest } from '../../application/use-cases/usage-limits/admit-request.use-case';
import { ChargeToolCalls } from '../../application/use-cases/usage-limits/charge-tool-calls.use-case';
import { AuditChainVerifier, ChainVerdict } from '../../adapters/audit/audit-chain-verifier';
import { UsageGate } from '../../adapters/edge/usage-gate';
import { AuditEventsController } from '../../adapters/http/controllers/audit-events.controller';
import { ToolCallRecorder } from '../../adapters/mcp/tool-call-recorder';
import { ToolUsageHook } from '../../adapters/edge/tool-usage-hook';
import { Metrics } from '../../adapters/observability/metrics';
import { AuditRetention } from '../../adapters/persistence/audit/audit-retention';
import { ChainBatchWriter } from '../../adapters/persistence/audit/chain-batch-writer';
import { GroupCommitAuditQueue } from '../../adapters/persistence/audit/group-commit-audit-queue';
import { TypeormAuditEventReader } from '../../adapters/persistence/audit/typeorm-audit-event-reader';
import { PostgresUsageBudget } from '../../adapters/persistence/usage/postgres-usage-budget';
import { QuotaLeases } from '../../adapters/persistence/usage/quota-leases';
import { RateWindows } from '../../adapters/persistence/usage/rate-windows';
import { TypeormQuotaBalances } from '../../adapters/persistence/usage/typeorm-quota-balances';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/**
 * Audit and usage: the audit log's group-commit writer, the tool-call
 * recorder, audit reads and export behind /api/v1/audit-events, retention; the
 * usage budget (rate windows, quota leases) and the use-cases and gate that
 * admit requests and charge tool calls.
 */
export function bindAuditAndUsage(c: Container): void {
  bindAudit(c);
  bindUsage(c);
}

const HOUR_MS = 3_600_000;

/**
 * The audit trail beyond what the unit of work writes with each change: the
 * tool-call events, each call answered once its batch is committed by
 * GroupCommitAuditQueue (which the container's Lifecycle, before the pool
 * closes, flushes); reading the trail (the list, the NDJSON export),
 * verifying its chain and pruning it.
 */
function bindAudit(c: Container): void {
  c.bind(GroupCommitAuditQueue).toResolvedValue(
    (dataSource: DataSource, { audit }: Config, metrics: Metrics, logger: Logger) =>
      new GroupCommitAuditQueue(
        new ChainBatchWriter(dataSource).write,
        { retryMs: audit.flushMs, batchSize: audit.batchSize, maxKept: audit.maxPending },
        {
          written: (count) => metrics.auditEventsWritten.inc(count),
          dropped: (count, reason) => metrics.auditEventsDropped.inc({ reason }, count),
          warn: (message, error) => logger.warn(error === undefined ? {} : { err: error }, message),
        },
      ),
    [TOKENS.DataSource, TOKENS.Config, TOKENS.Metrics, TOKENS.Logger],
  );
  c.bind<AuditQueue>(TOKENS.AuditQueue).toService(GroupCommitAuditQueue);
  c.bind(ToolCallRecorder).toResolvedValue(
    (queue: AuditQueue, clock: Clock, usage: ToolUsageHook) => new ToolCallRecorder(queue, clock, usage),
    [TOKENS.AuditQueue, TOKENS.Clock, ToolUsageHook],
  );

  c.bind<AuditEventReader>(TOKENS.AuditEventReader).toResolvedValue(
    (ds: DataSource) => new TypeormAuditEventReader(ds.manager),
    [TOKENS.DataSource],
  );
  c.bind(ListAuditEvents).toResolvedValue((reader: AuditEventReader) => new ListAuditEvents(reader), [TOKENS.AuditEventReader]);
  c.bind(ExportAuditEvents).toResolvedValue((reader: AuditEventReader) => new ExportAuditEvents(reader), [TOKENS.AuditEventReader]);
  c.bind(AuditEventsController).toResolvedValue(
    (list: ListAuditEvents, exporter: ExportAuditEvents) => new AuditEventsController({ list, export: exporter }),
    [ListAuditEvents, ExportAuditEvents],
  );
  // One read-only REPEATABLE READ snapshot, so events committed or pruned during the walk cannot look like tampering.
  c.bind<() => Promise<ChainVerdict>>(TOKENS.VerifyAuditChain).toResolvedValue(
    (ds: DataSource) => () =>
      ds.transaction('REPEATABLE READ', async (manager) => {
        await manager.query('SET TRANSACTION READ ONLY');
        return new AuditChainVerifier(new TypeormAuditEventReader(manager)).verify();
      }),
    [TOKENS.DataSource],
  );
  c.bind(AuditRetention).toResolvedValue(
    (ds: DataSource, config: Config, logger: Logger) =>
      new AuditRetention(ds, {
        days: config.audit.retentionDays,
        intervalMs: HOUR_MS,
        onPruned: (removed) => logger.info({ removed, retentionDays: config.audit.retentionDays }, 'pruned audit events past retention'),
        onError: (error) => logger.error({ err: error }, 'audit retention failed; retrying at the next interval'),
      }),
    [TOKENS.DataSource, TOKENS.Config, TOKENS.Logger],
  );
}

/**
 * Keys' rate limits and quotas: the PostgreSQL lease budget (which the
 * container's Lifecycle starts and, before the pool closes, settles, and to
 * which the change listener delivers PATCHes and refills), the use-cases the
 * /mcp edge calls, and the balances the key API sets and lists.
 */
function bindUsage(c: Container): void {
  c.bind(PostgresUsageBudget).toResolvedValue(
    (ds: DataSource, clock: Clock, logger: Logger) =>
      new PostgresUsageBudget(new QuotaLeases(ds, randomUUID()), new RateWindows(ds), clock, undefined, (message, error) =>
        logger.warn({ err: error }, message),
      ),
    [TOKENS.DataSource, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind<UsageBudget>(TOKENS.UsageBudget).toService(PostgresUsageBudget);
  c.bind<QuotaBalances>(TOKENS.QuotaBalances).toResolvedValue(
    (ds: DataSource) => new TypeormQuotaBalances(ds.manager),
    [TOKENS.DataSource],
  );
  c.bind(AdmitRequest).toResolvedValue(
    (budget: UsageBudget, clock: Clock) => new AdmitRequest(budget, clock),
    [TOKENS.UsageBudget, TOKENS.Clock],
  );
  c.bind(ChargeToolCalls).toResolvedValue(
    (budget: UsageBudget, clock: Clock) => new ChargeToolCalls(budget, clock),
    [TOKENS.UsageBudget, TOKENS.Clock],
  );
  c.bind(UsageGate).toResolvedValue(
    (admit: AdmitRequest, charge: ChargeToolCalls, metrics: Metrics, usage: ToolUsageHook) =>
      new UsageGate({
        admit,
        charge,
        refused: (kind) => (kind === 'rate_limited' ? metrics.rateLimited : metrics.quotaExhausted).inc(),
        usage,
      }),
    [AdmitRequest, ChargeToolCalls, TOKENS.Metrics, ToolUsageHook],
  );
}
