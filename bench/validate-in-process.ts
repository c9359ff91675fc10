import { randomUUID } from 'node:crypto';
import { CreateKey } from '../src/application/use-cases/create-key/create-key.use-case';
import { ValidateKey } from '../src/application/use-cases/validate-key/validate-key.use-case';
import { loadConfig } from '../src/infrastructure/config/config';
import { createDataSource } from '../src/infrastructure/database/data-source';
import { buildContainer } from '../src/infrastructure/di/container';
import { Lifecycle } from '../src/infrastructure/di/lifecycle';

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
  const config = loadConfig({ NODE_ENV: 'bench', DATABASE_URL: url, KEY_CACHE_MAX_ENTRIES: '1000', LAST_USED_FLUSH_MS: '1000' });
  const database = { dataSource, close: () => dataSource.destroy() };
  const container = buildContainer({ config, database });
  const lifecycle = container.get(Lifecycle);
  await lifecycle.start();
  try {
    const actor = { userId: randomUUID(), isAdmin: false };
    const { rawKey } = await container.get(CreateKey).execute({ actor, name: 'bench' });
    // Wired as in the service (the cache-hit counter included), and taken from the container once, before timing.
    const validate = container.get(ValidateKey);
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
    await lifecycle.stop();
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
