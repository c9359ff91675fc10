import { ConfigError, loadConfig } from '../src/infrastructure/config/config';
import { createDataSource } from '../src/infrastructure/database/data-source';
import { migrateExclusively } from '../src/infrastructure/database/database';

/**
 * npm run migrate: applies the migrations DATABASE_URL lacks and exits, for a
 * deployment's migration job (deploy/kubernetes). The service migrates at
 * start-up too, under the same advisory lock, so a job and replicas starting
 * together wait for each other instead of racing. Exits 0 when the schema is
 * current, 1 when it could not migrate. Never starts an embedded database.
 */
async function main(): Promise<void> {
  // Only DATABASE_URL matters here, so production's other requirements (JWT, SECRETS_KEY) are not asked for.
  const config = loadConfig({ ...process.env, NODE_ENV: 'job' });
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL is required: the database to migrate');
  const dataSource = createDataSource({ url: config.databaseUrl, poolSize: 2, applicationName: 'keygate-migrate' });
  await dataSource.initialize();
  try {
    const applied = await migrateExclusively(dataSource);
    process.stdout.write(
      `migrations applied: ${applied.length}${applied.length ? ` (${applied.join(', ')})` : ''}; the schema is current\n`,
    );
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  // A pg or config error names no secret; the URL itself is never printed.
  process.stderr.write(`migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
