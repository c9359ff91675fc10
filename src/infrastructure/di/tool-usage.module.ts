import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { Logger } from 'pino';
import { ToolUsageHook } from '../../adapters/edge/tool-usage-hook';
import { UsageController } from '../../adapters/http/controllers/usage.controller';
import { Metrics } from '../../adapters/observability/metrics';
import { TypeormUsageStore } from '../../adapters/persistence/tool-usage/typeorm-usage-store';
import { UsageRetention } from '../../adapters/persistence/tool-usage/usage-retention';
import { ApiKeyRepository } from '../../application/ports/api-key-repository.port';
import { Clock } from '../../application/ports/clock.port';
import { GetUsage } from '../../application/use-cases/usage/get-usage.use-case';
import { UsageFlusher } from '../../application/use-cases/usage/usage-flusher';
import { UsageTally } from '../../application/use-cases/usage/usage-tally';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

const HOUR_MS = 3_600_000;

/**
 * Per-key tool usage (issue 29): this replica's tally and the hook that
 * feeds it (and the per-tool metrics), its flusher and retention, the usage
 * tables and GET /api/v1/usage.
 */
export function bindToolUsage(c: Container): void {
  c.bind(UsageTally).toResolvedValue(() => new UsageTally());
  c.bind(ToolUsageHook).toResolvedValue(
    (tally: UsageTally, metrics: Metrics, clock: Clock) => new ToolUsageHook(tally, metrics.toolCalls, clock),
    [UsageTally, TOKENS.Metrics, TOKENS.Clock],
  );
  c.bind(TypeormUsageStore).toResolvedValue((ds: DataSource) => new TypeormUsageStore(ds), [TOKENS.DataSource]);
  c.bind(UsageFlusher).toResolvedValue(
    (tally: UsageTally, store: TypeormUsageStore, config: Config, logger: Logger) =>
      new UsageFlusher(tally, store, {
        intervalMs: config.usage.flushIntervalMs,
        onError: (error) => logger.error({ err: error }, 'usage flush failed; its counts are kept for the next one'),
        onDropped: (calls) => logger.warn({ calls }, 'usage counts dropped: too many distinct entries between flushes'),
      }),
    [UsageTally, TypeormUsageStore, TOKENS.Config, TOKENS.Logger],
  );
  c.bind(UsageRetention).toResolvedValue(
    (ds: DataSource, config: Config, logger: Logger) =>
      new UsageRetention(ds, {
        minuteDays: config.usage.retentionDays,
        intervalMs: HOUR_MS,
        onPruned: (removed) => logger.info({ removed, retentionDays: config.usage.retentionDays }, 'pruned usage buckets past retention'),
        onError: (error) => logger.error({ err: error }, 'usage retention failed; retrying at the next interval'),
      }),
    [TOKENS.DataSource, TOKENS.Config, TOKENS.Logger],
  );
  c.bind(GetUsage).toResolvedValue(
    (store: TypeormUsageStore, keys: ApiKeyRepository, clock: Clock, config: Config) =>
      new GetUsage(store, keys, clock, config.usage.flushIntervalMs),
    [TypeormUsageStore, TOKENS.ApiKeyRepository, TOKENS.Clock, TOKENS.Config],
  );
  c.bind(UsageController).toResolvedValue((get: GetUsage) => new UsageController(get), [GetUsage]);
}
