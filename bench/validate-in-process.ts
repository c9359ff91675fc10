import { randomUUID } from 'node:crypto';
import { CreateKey } from '../src/application/use-cases/create-key/create-key.use-case';
import { ValidateKey } from '../src/application/use-cases/validate-key/validate-key.use-case';
import { RandomKeyGenerator } from '../src/adapters/crypto/random-key-generator';
import { Sha256KeyHasher } from '../src/adapters/crypto/sha256-key-hasher';
import { SystemClock } from '../src/adapters/crypto/system-clock';
import { TypeormApiKeyRepository } from '../src/adapters/persistence/typeorm-api-key.repository';
import { createDataSource } from '../src/infrastructure/database/data-source';
import { HotPath } from '../src/infrastructure/database/hot-path';

export interface InProcessResult {
  operations: number;
  opsPerSecond: number;
  medianMicros: number;
  p99Micros: number;
}

/** (d): ValidateKey.execute on a cached key, timed one call at a time, as a replica runs it. */
export async function validateInProcess(url: string, operations = 200_000): Promise<InProcessResult> {
  const dataSource = createDataSource({ url, poolSize: 2 });
  await dataSource.initialize();
  const rows = new TypeormApiKeyRepository(dataSource);
  const hotPath = new HotPath(dataSource, rows, { keyCacheEntries: 1000, lastUsedFlushMs: 1000 });
  await hotPath.start();
  try {
    const keys = hotPath.keys;
    const clock = new SystemClock();
    const hasher = new Sha256KeyHasher();
    const actor = { userId: randomUUID(), isAdmin: false };
    const { rawKey } = await new CreateKey(keys, hasher, new RandomKeyGenerator(), clock, { maxKeysPerUser: 10 }).execute({ actor, name: 'bench' });
    const validate = new ValidateKey(keys, hasher, clock);
    for (let i = 0; i < 10_000; i += 1) await validate.execute({ rawKey }); // warm the cache and the JIT
    const samples = new Float64Array(operations);
    const started = process.hrtime.bigint();
    for (let i = 0; i < operations; i += 1) {
      const t0 = process.hrtime.bigint();
      await validate.execute({ rawKey });
      samples[i] = Number(process.hrtime.bigint() - t0) / 1000;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    samples.sort();
    return {
      operations,
      opsPerSecond: Math.round(operations / seconds),
      medianMicros: round(samples[Math.floor(operations / 2)]),
      p99Micros: round(samples[Math.floor(operations * 0.99)]),
    };
  } finally {
    await hotPath.stop();
    await dataSource.destroy();
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
