import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { ApiKeyRepository } from '../../src/application/ports/api-key-repository.port';
import { ValidateKey } from '../../src/application/use-cases/validate-key/validate-key.use-case';
import { loadConfig } from '../../src/infrastructure/config/config';
import { createDataSource } from '../../src/infrastructure/database/data-source';
import { buildContainer } from '../../src/infrastructure/di/container';
import { Lifecycle } from '../../src/infrastructure/di/lifecycle';
import { TOKENS } from '../../src/infrastructure/di/tokens';
import { hotPathOf, HotPathParts } from './hot-path-parts';

export interface Replica {
  container: Container;
  dataSource: DataSource;
  hotPath: HotPathParts;
  keys: ApiKeyRepository;
  validateKey: ValidateKey;
  close(): Promise<void>;
}

/**
 * One service replica's key path (own pool, cache and listener, no SECRETS_KEY
 * unless `env` gives one) on a shared database; `env` adds settings, and
 * `createApp(replica.container)` makes its whole edge.
 */
export async function startReplica(url: string, lastUsedFlushMs = 1000, env: Record<string, string> = {}): Promise<Replica> {
  const dataSource = createDataSource({ url, poolSize: 3 });
  await dataSource.initialize();
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: url,
    KEY_CACHE_MAX_ENTRIES: '100',
    LAST_USED_FLUSH_MS: String(lastUsedFlushMs),
    ...env,
  });
  const database = {
    dataSource,
    async close() {
      if (dataSource.isInitialized) await dataSource.destroy();
    },
  };
  const container = buildContainer({ config, database });
  const lifecycle = container.get(Lifecycle);
  await lifecycle.start();
  return {
    container,
    dataSource,
    hotPath: hotPathOf(container),
    keys: container.get<ApiKeyRepository>(TOKENS.ApiKeyRepository),
    validateKey: container.get(ValidateKey),
    close: () => lifecycle.stop().catch(() => undefined),
  };
}

export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 5): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
