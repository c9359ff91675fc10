import { Container } from 'inversify';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ApiKeyRepository } from '../../application/ports/api-key-repository.port';
import { Clock } from '../../application/ports/clock.port';
import { KeyHasher } from '../../application/ports/key-hasher.port';
import { ResourceStore } from '../../application/ports/resource-store.port';
import { SecretBox } from '../../application/ports/secret-box.port';
import { CachedKeyCheck } from '../../adapters/persistence/hot-path/cached-key-check';
import { HotPathApiKeyRepository } from '../../adapters/persistence/hot-path/hot-path-api-key.repository';
import { KeyCache } from '../../adapters/persistence/hot-path/key-cache';
import { LastUsedCoalescer } from '../../adapters/persistence/hot-path/last-used-coalescer';
import { ChangeListener, NotifiedCache } from '../../adapters/persistence/hot-path/change-listener';
import { McpServerListCache } from '../../adapters/persistence/hot-path/mcp-server-list-cache';
import { EncryptedResourceStore, UnreadableSecrets } from '../../adapters/persistence/encrypted-resource.store';
import { PostgresResourceStore } from '../../adapters/persistence/postgres-resource.store';
import { RecordSecrets } from '../../adapters/persistence/record-secrets';
import { TypeormApiKeyRepository } from '../../adapters/persistence/typeorm-api-key.repository';
import { Metrics } from '../../adapters/observability/metrics';
import { PostgresUsageBudget } from '../../adapters/persistence/usage/postgres-usage-budget';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/** Stands in when SECRETS_KEY is unset (replicas that only validate keys, internal jobs): storing a secret then fails. */
const NO_SECRET_BOX: SecretBox = {
  encrypt: refuse,
  decrypt: refuse,
  rebind: refuse,
  isEncrypted: () => true,
  isCurrent: () => false,
  isOwnerBound: () => false,
};

/**
 * The hot path's moving parts: the key cache and the per-user MCP server lists
 * (on only while the change listener is connected), and the last_used_at batch
 * writer (writing through until started). The container's Lifecycle starts and
 * stops the coalescer and the listener.
 */
export function bindHotPath(c: Container): void {
  c.bind(TypeormApiKeyRepository).toResolvedValue((ds: DataSource) => new TypeormApiKeyRepository(ds.manager), [TOKENS.DataSource]);
  c.bind<KeyCache>(TOKENS.KeyCache).toResolvedValue(({ hotPath }: Config) => new KeyCache(hotPath.keyCacheEntries), [TOKENS.Config]);
  c.bind(LastUsedCoalescer).toResolvedValue(
    (repository: TypeormApiKeyRepository, { hotPath }: Config, metrics: Metrics) =>
      new LastUsedCoalescer((batch) => repository.touchLastUsedBatch(batch), hotPath.lastUsedFlushMs, () => metrics.lastUsedFlushBatches.inc()),
    [TypeormApiKeyRepository, TOKENS.Config, TOKENS.Metrics],
  );
  // The key repository as ValidateKey should use it: cached lookups, coalesced last_used_at.
  c.bind<ApiKeyRepository>(TOKENS.ApiKeyRepository).toResolvedValue(
    (repository: TypeormApiKeyRepository, cache: KeyCache, lastUsed: LastUsedCoalescer, metrics: Metrics) =>
      new HotPathApiKeyRepository(repository, cache, lastUsed, (hit) => metrics.keyCacheLookups.inc(hit ? 'hit' : 'miss')),
    [TypeormApiKeyRepository, TOKENS.KeyCache, LastUsedCoalescer, TOKENS.Metrics],
  );
  // What the failed-validation limit asks before refusing an address: a key the cache alone validates.
  c.bind(CachedKeyCheck).toResolvedValue(
    (cache: KeyCache, hasher: KeyHasher, clock: Clock) => new CachedKeyCheck(cache, hasher, clock),
    [TOKENS.KeyCache, TOKENS.KeyHasher, TOKENS.Clock],
  );
  // The resource store, secrets encrypted at rest, with each user's MCP server list cached (in plaintext, in memory only).
  c.bind(RecordSecrets).toResolvedValue(
    (secrets: SecretBox | undefined) => new RecordSecrets(secrets ?? NO_SECRET_BOX),
    [{ serviceIdentifier: TOKENS.SecretBox, optional: true }],
  );
  c.bind(McpServerListCache).toResolvedValue(
    (dataSource: DataSource, { hotPath }: Config, secrets: RecordSecrets, logger: Logger, metrics: Metrics) => {
      // The record id and the box's reason (a key id at most), never a value.
      const unreadable: UnreadableSecrets = (record, reason) => {
        metrics.unreadableSecrets.inc();
        logger.warn({ mcpServerId: record.id }, `MCP server ${record.id}: its stored header values do not decrypt (${reason}); its tools are withheld`);
      };
      return new McpServerListCache(new EncryptedResourceStore(new PostgresResourceStore(dataSource.manager), secrets, unreadable), hotPath.serverListCacheEntries);
    },
    [TOKENS.DataSource, TOKENS.Config, RecordSecrets, TOKENS.Logger, TOKENS.Metrics],
  );
  c.bind<ResourceStore>(TOKENS.ResourceStore).toService(McpServerListCache);
  // The caches first: the sessions' handlers of the same notifications read through them.
  c.bind(ChangeListener).toResolvedValue(
    (dataSource: DataSource, cache: KeyCache, servers: McpServerListCache, usage: PostgresUsageBudget, sessions: NotifiedCache[] | undefined, relay: NotifiedCache[] | undefined,
      subscriptions: NotifiedCache[] | undefined) =>
      new ChangeListener([cache, servers.lists, usage, ...(sessions ?? []), ...(relay ?? []), ...(subscriptions ?? [])], { url: connectionUrl(dataSource) }),
    [TOKENS.DataSource, TOKENS.KeyCache, McpServerListCache, PostgresUsageBudget, { serviceIdentifier: TOKENS.SessionChannels, optional: true },
      { serviceIdentifier: TOKENS.RelayChannels, optional: true }, { serviceIdentifier: TOKENS.SubscriptionChannels, optional: true }],
  );
}

function connectionUrl(dataSource: DataSource): string {
  const url = (dataSource.options as { url?: string }).url;
  if (!url) throw new Error('The data source was built without a URL');
  return url;
}

function refuse(): never {
  throw new Error('SECRETS_KEY is not set here (a replica or job that only validates keys), so stored secrets cannot be written or read');
}
