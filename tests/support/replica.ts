import { DataSource } from 'typeorm';
import { ApiKeyRepository } from '../../src/application/ports/api-key-repository.port';
import { ValidateKey } from '../../src/application/use-cases/validate-key/validate-key.use-case';
import { Sha256KeyHasher } from '../../src/adapters/crypto/sha256-key-hasher';
import { SystemClock } from '../../src/adapters/crypto/system-clock';
import { TypeormApiKeyRepository } from '../../src/adapters/persistence/typeorm-api-key.repository';
import { HotPath } from '../../src/infrastructure/database/hot-path';
import { createDataSource } from '../../src/infrastructure/database/data-source';

export interface Replica {
  dataSource: DataSource;
  hotPath: HotPath;
  keys: ApiKeyRepository;
  validateKey: ValidateKey;
  close(): Promise<void>;
}

/** One service replica's key path (own pool, cache and listener) on a shared database. */
export async function startReplica(url: string, lastUsedFlushMs = 1000): Promise<Replica> {
  const dataSource = createDataSource({ url, poolSize: 3 });
  await dataSource.initialize();
  const rows = new TypeormApiKeyRepository(dataSource);
  const hotPath = new HotPath(dataSource, rows, { keyCacheEntries: 100, lastUsedFlushMs });
  await hotPath.start();
  const keys = hotPath.keys;
  return {
    dataSource,
    hotPath,
    keys,
    validateKey: new ValidateKey(keys, new Sha256KeyHasher(), new SystemClock()),
    async close() {
      await hotPath.stop().catch(() => undefined);
      if (dataSource.isInitialized) await dataSource.destroy();
    },
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
