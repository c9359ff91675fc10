import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
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
  // Written whole under a name of its own, then linked into place: link fails when the file exists, so when two
  // processes start together the second reads the first one's key, and never a file created but not yet written.
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(draft, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(draft);
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new ConfigError(`${file} must hold a 32-byte key written as base64`);
  return key;
}
