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
 * service, and takes its parts from the same composition root. Records whose
 * secrets do not decrypt are listed on stderr and passed over; the exit
 * status is then 1, after the others are rotated.
 */
async function main(): Promise<void> {
  const config = withSecretsKey(loadConfig());
  const database = await openDatabase(config, (line) => process.stderr.write(`${line}\n`));
  try {
    const container = buildContainer({ config, database });
    const { changed, unreadable } = await container.get(StoredSecrets).reseal('all');
    const { keyId } = container.get<AesGcmSecretBox>(TOKENS.SecretBox);
    if (unreadable.length === 0) {
      process.stdout.write(`re-encrypted the secrets of ${changed} records; every stored secret is now under key ${keyId}\n`);
      return;
    }
    process.stdout.write(
      `re-encrypted the secrets of ${changed} records under key ${keyId}; ${unreadable.length} could not be read and are left as they are\n`,
    );
    // Record ids and the box's reason (a key id at most), never a value: the owner sets those headers again, or the record is deleted.
    for (const { id, reason } of unreadable) process.stderr.write(`secrets:rotate: MCP server ${id} not rotated: ${reason}\n`);
    process.exitCode = 1;
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof SecretBoxError;
  process.stderr.write(`secrets:rotate failed: ${known ? error.message : ((error as Error)?.stack ?? String(error))}\n`);
  process.exit(1);
});
