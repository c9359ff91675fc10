import { AesGcmSecretBox, SecretBoxError } from '../src/adapters/crypto/aes-gcm-secret-box';
import { StoredSecrets } from '../src/adapters/persistence/stored-secrets';
import { ConfigError, loadConfig } from '../src/infrastructure/config/config';
import { withSecretsKey } from '../src/infrastructure/config/secrets-key';
import { openDatabase } from '../src/infrastructure/database/database';
import { buildContainer } from '../src/infrastructure/di/container';
import { TOKENS } from '../src/infrastructure/di/tokens';

/**
 * npm run secrets:rotate: re-encrypts every stored secret (upstream MCP server
 * header values) under SECRETS_KEY, those under SECRETS_KEY_PREVIOUS and any
 * still in plaintext. Reads DATABASE_URL, DATA_DIR and the keys like the
 * service, and takes its parts from the same composition root.
 */
async function main(): Promise<void> {
  const config = withSecretsKey(loadConfig());
  const database = await openDatabase(config, (line) => process.stderr.write(`${line}\n`));
  try {
    const container = buildContainer({ config, database });
    const count = await container.get(StoredSecrets).reseal('all');
    const { keyId } = container.get<AesGcmSecretBox>(TOKENS.SecretBox);
    process.stdout.write(`re-encrypted the secrets of ${count} records; every stored secret is now under key ${keyId}\n`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof SecretBoxError;
  process.stderr.write(`secrets:rotate failed: ${known ? (error as Error).message : (error as Error)?.stack ?? error}\n`);
  process.exit(1);
});
