import { Container } from 'inversify';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AuditEventReader, AuditQueue } from '../../application/ports/audit-log.port';
import { Clock } from '../../application/ports/clock.port';
import { ExportAuditEvents } from '../../application/use-cases/audit-events/export-audit-events.use-case';
import { ListAuditEvents } from '../../application/use-cases/audit-events/list-audit-events.use-case';
import { AuditChainVerifier, ChainVerdict } from '../../adapters/audit/audit-chain-verifier';
import { AuditEventsController } from '../../adapters/http/controllers/audit-events.controller';
import { ToolCallRecorder } from '../../adapters/mcp/tool-call-recorder';
import { AuditRetention } from '../../adapters/persistence/audit/audit-retention';
import { ChainBatchWriter } from '../../adapters/persistence/audit/chain-batch-writer';
import { GroupCommitAuditQueue } from '../../adapters/persistence/audit/group-commit-audit-queue';
import { TypeormAuditEventReader } from '../../adapters/persistence/audit/typeorm-audit-event-reader';
import { Metrics } from '../../adapters/observability/metrics';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

const HOUR_MS = 3_600_000;

/**
 * The audit trail beyond what the unit of work writes with each change: the
 * tool-call events, each call answered once its batch is committed by
 * GroupCommitAuditQueue (which the container's Lifecycle, before the pool
 * closes, flushes); reading the trail (the list, the NDJSON export),
 * verifying its chain and pruning it.
 */
export function bindAudit(c: Container): void {
  c.bind(GroupCommitAuditQueue).toResolvedValue(
    (dataSource: DataSource, { audit }: Config, metrics: Metrics, logger: Logger) => new GroupCommitAuditQueue(
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
    (queue: AuditQueue, clock: Clock) => new ToolCallRecorder(queue, clock),
    [TOKENS.AuditQueue, TOKENS.Clock],
  );

  c.bind<AuditEventReader>(TOKENS.AuditEventReader).toResolvedValue((ds: DataSource) => new TypeormAuditEventReader(ds.manager), [TOKENS.DataSource]);
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
