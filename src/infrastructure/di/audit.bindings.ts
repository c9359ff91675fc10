import { Container } from 'inversify';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AuditEventReader } from '../../application/ports/audit-log.port';
import { ExportAuditEvents } from '../../application/use-cases/audit-events/export-audit-events.use-case';
import { ListAuditEvents } from '../../application/use-cases/audit-events/list-audit-events.use-case';
import { AuditChainVerifier, ChainVerdict } from '../../adapters/audit/audit-chain-verifier';
import { AuditEventsController } from '../../adapters/http/controllers/audit-events.controller';
import { AuditRetention } from '../../adapters/persistence/audit/audit-retention';
import { TypeormAuditEventReader } from '../../adapters/persistence/audit/typeorm-audit-event-reader';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

const HOUR_MS = 3_600_000;

/**
 * Reading the audit trail (the list, the NDJSON export), verifying its chain
 * and pruning it. Writing it is the unit of work's (container.ts).
 */
export function bindAudit(c: Container): void {
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
