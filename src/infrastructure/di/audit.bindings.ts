import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { Logger } from 'pino';
import { AuditQueue } from '../../application/ports/audit-log.port';
import { Clock } from '../../application/ports/clock.port';
import { ToolCallRecorder } from '../../adapters/mcp/tool-call-recorder';
import { BatchingAuditQueue } from '../../adapters/persistence/audit/batching-audit-queue';
import { TypeormAuditLog } from '../../adapters/persistence/audit/typeorm-audit-log';
import { databaseCall } from '../../adapters/persistence/database-unavailable';
import { Metrics } from '../../adapters/observability/metrics';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/**
 * The audit events that need no transaction of their own (tool calls): queued
 * on the request path, written in batches by BatchingAuditQueue, which the
 * container's Lifecycle starts and, before the pool closes, flushes.
 */
export function bindAudit(c: Container): void {
  c.bind(BatchingAuditQueue).toResolvedValue(
    (dataSource: DataSource, { auditQueue }: Config, metrics: Metrics, logger: Logger) => new BatchingAuditQueue(
      (batch) => databaseCall(dataSource.transaction((manager) => new TypeormAuditLog(manager).append(batch))),
      { intervalMs: auditQueue.flushMs, batchSize: auditQueue.batchSize, maxPending: auditQueue.maxPending },
      {
        written: (count) => metrics.auditEventsWritten.inc(count),
        dropped: (count, reason) => metrics.auditEventsDropped.inc({ reason }, count),
        warn: (message, error) => logger.warn(error === undefined ? {} : { err: error }, message),
      },
    ),
    [TOKENS.DataSource, TOKENS.Config, TOKENS.Metrics, TOKENS.Logger],
  );
  c.bind<AuditQueue>(TOKENS.AuditQueue).toService(BatchingAuditQueue);
  c.bind(ToolCallRecorder).toResolvedValue(
    (queue: AuditQueue, clock: Clock, log: (error: unknown) => void) => new ToolCallRecorder(queue, clock, log),
    [TOKENS.AuditQueue, TOKENS.Clock, TOKENS.McpLog],
  );
}
