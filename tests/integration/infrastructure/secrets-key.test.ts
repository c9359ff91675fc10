import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
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

  it('is the same key for processes that start together on a fresh DATA_DIR, none reading a file not yet written', async () => {
    const module = path.resolve(__dirname, '../../../dist/src/infrastructure/config/secrets-key.js');
    const config = path.resolve(__dirname, '../../../dist/src/infrastructure/config/config.js');
    const script = `const { withSecretsKey } = require(${JSON.stringify(module)}); const { loadConfig } = require(${JSON.stringify(config)});
      process.stdout.write(withSecretsKey(loadConfig({ DATA_DIR: process.argv[1] })).secrets.key.toString('base64'));`;
    for (let round = 0; round < 4; round++) {
      const dir = path.join(dataDir, `round-${round}`);
      const keys = await Promise.all(
        Array.from(
          { length: 8 },
          () =>
            new Promise<string>((resolve, reject) =>
              execFile(process.execPath, ['-e', script, dir], (error, stdout, stderr) =>
                error ? reject(new Error(stderr)) : resolve(stdout),
              ),
            ),
        ),
      );
      expect(new Set(keys).size).toBe(1);
      expect(readdirSync(dir)).toEqual(['dev-secrets-key']);
    }
  });

  it('is never made up in production', () => {
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(() => withSecretsKey({ ...config, env: 'production' })).toThrow(/SECRETS_KEY is required/);
  });
});
