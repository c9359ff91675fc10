import { DataSource } from 'typeorm';
import { SecretBox } from '../../application/ports/secret-box.port';
import { HotPathApiKeyRepository } from '../../adapters/persistence/hot-path/hot-path-api-key.repository';
import { KeyCache } from '../../adapters/persistence/hot-path/key-cache';
import { LastUsedCoalescer } from '../../adapters/persistence/hot-path/last-used-coalescer';
import { ChangeListener } from '../../adapters/persistence/hot-path/change-listener';
import { McpServerListCache } from '../../adapters/persistence/hot-path/mcp-server-list-cache';
import { EncryptedResourceStore } from '../../adapters/persistence/encrypted-resource.store';
import { PostgresResourceStore } from '../../adapters/persistence/postgres-resource.store';
import { RecordSecrets } from '../../adapters/persistence/record-secrets';
import { TypeormApiKeyRepository } from '../../adapters/persistence/typeorm-api-key.repository';

export interface HotPathOptions {
  keyCacheEntries: number;
  lastUsedFlushMs: number;
  onFlushBatch?: (size: number) => void;
  onKeyLookup?: (hit: boolean) => void;
  log?: (message: string, error?: unknown) => void;
  /** Encrypts stored upstream header values. Left out by replicas that only validate keys; storing a secret then fails. */
  secrets?: SecretBox;
}

const NO_SECRET_BOX: SecretBox = {
  encrypt: refuse,
  decrypt: refuse,
  isEncrypted: () => true,
  isCurrent: () => false,
};

/**
 * The hot path's moving parts and their lifecycle: the key cache and the
 * per-user MCP server lists (on only while the change listener is connected),
 * and the last_used_at batch writer (writing through until started).
 */
export class HotPath {
  readonly cache: KeyCache;
  readonly lastUsed: LastUsedCoalescer;
  /** The key repository as ValidateKey should use it: cached lookups, coalesced last_used_at. */
  readonly keys: HotPathApiKeyRepository;
  /** The resource store, secrets encrypted at rest, with each user's MCP server list cached (in plaintext, in memory only). */
  readonly resources: McpServerListCache;
  private readonly listener: ChangeListener;

  constructor(dataSource: DataSource, repository: TypeormApiKeyRepository, options: HotPathOptions) {
    this.cache = new KeyCache(options.keyCacheEntries);
    this.lastUsed = new LastUsedCoalescer((batch) => repository.touchLastUsedBatch(batch), options.lastUsedFlushMs, options.onFlushBatch);
    this.keys = new HotPathApiKeyRepository(repository, this.cache, this.lastUsed, options.onKeyLookup);
    const encrypted = new EncryptedResourceStore(new PostgresResourceStore(dataSource), new RecordSecrets(options.secrets ?? NO_SECRET_BOX));
    this.resources = new McpServerListCache(encrypted, options.keyCacheEntries);
    this.listener = new ChangeListener([this.cache, this.resources.lists], { url: connectionUrl(dataSource), log: options.log });
  }

  async start(): Promise<void> {
    this.lastUsed.start();
    if (this.cache.maxEntries > 0) await this.listener.start();
  }

  /** Writes the last coalesced last_used_at values; call before closing the pool. */
  async stop(): Promise<void> {
    await this.listener.stop();
    await this.lastUsed.stop();
  }
}

function connectionUrl(dataSource: DataSource): string {
  const url = (dataSource.options as { url?: string }).url;
  if (!url) throw new Error('The data source was built without a URL');
  return url;
}

function refuse(): never {
  throw new Error('This HotPath was built without a SecretBox (options.secrets), so it cannot store or read secrets');
}
