import path from 'node:path';
import { DataSource } from 'typeorm';
import { Config } from '../config/config';
import { createDataSource } from './data-source';
import { LocalPostgres } from './local-postgres';

export interface Database {
  dataSource: DataSource;
  close(): Promise<void>;
}

/** Connects to DATABASE_URL, or starts the embedded server under DATA_DIR, then migrates. */
export async function openDatabase(config: Config, log: (line: string) => void): Promise<Database> {
  let embedded: LocalPostgres | null = null;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await LocalPostgres.start({ dir: path.join(config.dataDir, 'db'), notice: log });
    url = embedded.localUrl;
    log(`embedded PostgreSQL running with its data in ${path.join(config.dataDir, 'db')}`);
  }
  const dataSource = createDataSource({ url });
  try {
    await dataSource.initialize();
    await migrateExclusively(dataSource);
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  return {
    dataSource,
    async close() {
      if (dataSource.isInitialized) await dataSource.destroy();
      await embedded?.stop();
    },
  };
}

/**
 * Replicas (and the migration job, scripts/migrate.ts) starting together must not race each other through the
 * same migrations. Needs a pool of two: the lock holds one connection, the migrations run on another.
 * Answers the names of the migrations this call applied.
 */
export async function migrateExclusively(dataSource: DataSource): Promise<string[]> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', ['keygate:migrations']);
    return (await dataSource.runMigrations({ transaction: 'each' })).map((migration) => migration.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock(hashtext($1))', ['keygate:migrations']).catch(() => undefined);
    await lock.release();
  }
}
