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
  it('encrypts header values stored in plaintext, binds v1 values to their record, and names a record that does not decrypt without stopping', async () => {
    const token = `tok-${randomBytes(12).toString('hex')}`;
    const [owner, key] = [randomUUID(), randomBytes(32)];
    const store = new PostgresResourceStore(db.dataSource.manager);
    const legacy = await store.create(randomUUID(), topLevel('mcp_servers'), {
      name: 'legacy',
      url: 'https://x.example.com/mcp',
      headers: { Authorization: `Bearer ${token}` },
    });
    // As the previous release wrote it: bound to owner, resource, field and name only.
    const v1 = new AesGcmSecretBox(key)
      .encrypt('Bearer older', JSON.stringify([owner, 'mcp_servers', 'headers', 'Authorization']))
      .replace(/^v2:/, 'v1:');
    const older = await store.create(owner, topLevel('mcp_servers'), {
      name: 'older',
      url: 'https://x.example.com/mcp',
      headers: { Authorization: v1 },
    });
    const lost = await store.create(owner, topLevel('mcp_servers'), {
      name: 'lost',
      url: 'https://x.example.com/mcp',
      headers: { Authorization: new AesGcmSecretBox(randomBytes(32)).encrypt('x', 'y').replace(/^v2:/, 'v1:') },
    });
    const service = await waitForListening(startService({ DATABASE_URL: db.url, DATA_DIR: dataDir, SECRETS_KEY: key.toString('base64') }));
    try {
      expect(service.output()).toContain('encrypted the stored header values of 2 MCP servers, each bound to its record');
      expect(service.output()).toMatch(
        new RegExp(`MCP server ${lost.id}: its stored header values do not decrypt \\(A stored secret is under key [0-9a-f]{8}`),
      );
      expect(await tablesContaining(db.dataSource, token)).toEqual([]);
      const headerOf = async (id: string) =>
        (await db.dataSource.query('SELECT data FROM resource_records WHERE id = $1', [id]))[0].data.headers.Authorization;
      expect(await headerOf(legacy.id)).toMatch(new RegExp(`^v2:${new AesGcmSecretBox(key).keyId}:`));
      expect(await headerOf(older.id)).toMatch(new RegExp(`^v2:${new AesGcmSecretBox(key).keyId}:`));
      expect(service.output()).not.toContain(token);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }
  });
});
