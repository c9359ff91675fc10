import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AesGcmSecretBox } from '../../src/adapters/crypto/aes-gcm-secret-box';
import { PostgresResourceStore } from '../../src/adapters/persistence/postgres-resource.store';
import { topLevel } from '../../src/domain/resource/resource-record';
import { tablesContaining } from '../support/plaintext-scan';
import { startService, waitForListening } from '../support/service-process';
import { createTestDatabase, TestDatabase } from '../support/test-database';

jest.setTimeout(60_000);

let db: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'keygate-secrets-start-'));
});
afterAll(async () => {
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the built service at start-up', () => {
  it('encrypts header values stored in plaintext before encryption existed', async () => {
    const token = `tok-${randomBytes(12).toString('hex')}`;
    const legacy = await new PostgresResourceStore(db.dataSource.manager)
      .create(randomUUID(), topLevel('mcp_servers'), { name: 'legacy', url: 'https://x.example.com/mcp', headers: { Authorization: `Bearer ${token}` } });
    const key = randomBytes(32);
    const service = await waitForListening(startService({ DATABASE_URL: db.url, DATA_DIR: dataDir, SECRETS_KEY: key.toString('base64') }));
    try {
      expect(service.output()).toContain('encrypted the stored header values of 1 MCP servers');
      expect(await tablesContaining(db.dataSource, token)).toEqual([]);
      const [{ data }] = await db.dataSource.query('SELECT data FROM resource_records WHERE id = $1', [legacy.id]);
      expect(data.headers.Authorization).toMatch(new RegExp(`^v1:${new AesGcmSecretBox(key).keyId}:`));
      expect(service.output()).not.toContain(token);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }
  });
});
