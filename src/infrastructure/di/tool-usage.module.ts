import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { UsageController } from '../../adapters/http/controllers/usage.controller';
import { TypeormUsageStore } from '../../adapters/persistence/tool-usage/typeorm-usage-store';
import { ApiKeyRepository } from '../../application/ports/api-key-repository.port';
import { Clock } from '../../application/ports/clock.port';
import { GetUsage } from '../../application/use-cases/usage/get-usage.use-case';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/** Per-key tool usage (issue 29): the usage tables and GET /api/v1/usage. */
export function bindToolUsage(c: Container): void {
  c.bind(TypeormUsageStore).toResolvedValue((ds: DataSource) => new TypeormUsageStore(ds), [TOKENS.DataSource]);
  c.bind(GetUsage).toResolvedValue(
    (store: TypeormUsageStore, keys: ApiKeyRepository, clock: Clock, config: Config) =>
      new GetUsage(store, keys, clock, config.usage.flushIntervalMs),
    [TypeormUsageStore, TOKENS.ApiKeyRepository, TOKENS.Clock, TOKENS.Config],
  );
  c.bind(UsageController).toResolvedValue((get: GetUsage) => new UsageController(get), [GetUsage]);
}
