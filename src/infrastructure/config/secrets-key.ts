import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Config, ConfigError } from './config';

/**
 * The config with a secrets key: SECRETS_KEY, or outside production a
 * development key made once under DATA_DIR (0600), like the development
 * signing key, so a restart still reads what it stored. loadConfig already
 * refuses NODE_ENV=production without SECRETS_KEY.
 */
export function withSecretsKey(config: Config): Config {
  if (config.secrets.key !== null) return config;
  if (config.env === 'production') throw new ConfigError('SECRETS_KEY is required when NODE_ENV=production');
  return { ...config, secrets: { ...config.secrets, key: devSecretsKey(config.dataDir) } };
}

function devSecretsKey(dataDir: string): Buffer {
  const file = path.join(dataDir, 'dev-secrets-key');
  mkdirSync(dataDir, { recursive: true });
  try {
    // 'wx': when two processes start together, the second reads the first one's key.
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new ConfigError(`${file} must hold a 32-byte key written as base64`);
  return key;
}
