import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/infrastructure/config/config';
import { withSecretsKey } from '../../../src/infrastructure/config/secrets-key';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'keygate-secrets-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the secrets key', () => {
  it('is SECRETS_KEY when set, with no file written', () => {
    const key = Buffer.alloc(32, 7);
    const config = withSecretsKey(loadConfig({ DATA_DIR: dataDir, SECRETS_KEY: key.toString('base64') }));
    expect(config.secrets.key).toEqual(key);
    expect(() => statSync(path.join(dataDir, 'dev-secrets-key'))).toThrow();
  });

  it('is made once under DATA_DIR in development, readable by its owner only, and kept across restarts', () => {
    const first = withSecretsKey(loadConfig({ DATA_DIR: dataDir })).secrets.key!;
    const file = path.join(dataDir, 'dev-secrets-key');
    expect(first).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(withSecretsKey(loadConfig({ DATA_DIR: dataDir })).secrets.key).toEqual(first);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toEqual(first);
  });

  it('is never made up in production', () => {
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(() => withSecretsKey({ ...config, env: 'production' })).toThrow(/SECRETS_KEY is required/);
  });
});
