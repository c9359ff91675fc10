import { ChainVerdict } from '../src/adapters/audit/audit-chain-verifier';
import { ConfigError, loadConfig } from '../src/infrastructure/config/config';
import { createDataSource } from '../src/infrastructure/database/data-source';
import { buildContainer } from '../src/infrastructure/di/container';
import { TOKENS } from '../src/infrastructure/di/tokens';

/**
 * npm run audit:verify: walks the audit chain in DATABASE_URL from its anchor
 * to its head. Prints "audit chain intact: <n> events" and exits 0, or
 * "audit chain broken at seq <n>" and exits 1; 2 when it could not check.
 * Reads only: it neither migrates nor starts an embedded database.
 */
async function main(): Promise<number> {
  // Only DATABASE_URL matters here, so production's other requirements are not asked for.
  const config = loadConfig({ ...process.env, NODE_ENV: 'job' });
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL is required: the database whose audit chain to verify');
  const dataSource = createDataSource({ url: config.databaseUrl, poolSize: 1, applicationName: 'keygate-audit-verify' });
  await dataSource.initialize();
  const database = { dataSource, close: () => dataSource.destroy() };
  try {
    const verdict = await buildContainer({ config, database }).get<() => Promise<ChainVerdict>>(TOKENS.VerifyAuditChain)();
    if (verdict.intact) {
      process.stdout.write(`audit chain intact: ${verdict.events} events\n`);
      return 0;
    }
    process.stdout.write(`audit chain broken at seq ${verdict.brokenAtSeq}\n`);
    return 1;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`audit:verify could not check the chain: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
