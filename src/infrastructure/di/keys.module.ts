import { Router } from 'express';
import { Container, ResolutionContext } from 'inversify';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ApiKeyRepository } from '../../application/ports/api-key-repository.port';
import { Clock } from '../../application/ports/clock.port';
import { KeyGenerator } from '../../application/ports/key-generator.port';
import { KeyHasher } from '../../application/ports/key-hasher.port';
import { KeyPolicy } from '../../application/ports/key-policy.port';
import { QuotaBalances } from '../../application/ports/quota-balances.port';
import { ReportSignatureVerifier } from '../../application/ports/report-signature-verifier.port';
import { ResourceStore } from '../../application/ports/resource-store.port';
import { SecretBox } from '../../application/ports/secret-box.port';
import { UnitOfWork } from '../../application/ports/unit-of-work.port';
import { CreateKey } from '../../application/use-cases/create-key/create-key.use-case';
import { GetKey } from '../../application/use-cases/get-key/get-key.use-case';
import { ListKeys } from '../../application/use-cases/list-keys/list-keys.use-case';
import { ReportLeakedKeys } from '../../application/use-cases/report-leaked-keys/report-leaked-keys.use-case';
import { RevokeKey } from '../../application/use-cases/revoke-key/revoke-key.use-case';
import { RollKey } from '../../application/use-cases/roll-key/roll-key.use-case';
import { UpdateKey } from '../../application/use-cases/update-key/update-key.use-case';
import { TracedValidateKey } from '../../adapters/observability/traced-validate-key';
import { Tracing } from '../../adapters/observability/tracing';
import { ValidateKey } from '../../application/use-cases/validate-key/validate-key.use-case';
import { AesGcmSecretBox } from '../../adapters/crypto/aes-gcm-secret-box';
import { RandomKeyGenerator } from '../../adapters/crypto/random-key-generator';
import { Sha256KeyHasher } from '../../adapters/crypto/sha256-key-hasher';
import { ApiKeysController } from '../../adapters/http/controllers/api-keys.controller';
import { SecretScanningController } from '../../adapters/http/controllers/secret-scanning.controller';
import { Metrics } from '../../adapters/observability/metrics';
import { EncryptedResourceStore, UnreadableSecrets } from '../../adapters/persistence/encrypted-resource.store';
import { CachedKeyCheck } from '../../adapters/persistence/hot-path/cached-key-check';
import { ChangeListener, NotifiedCache } from '../../adapters/persistence/hot-path/change-listener';
import { HotPathApiKeyRepository } from '../../adapters/persistence/hot-path/hot-path-api-key.repository';
import { KeyCache } from '../../adapters/persistence/hot-path/key-cache';
import { LastUsedCoalescer } from '../../adapters/persistence/hot-path/last-used-coalescer';
import { McpServerListCache } from '../../adapters/persistence/hot-path/mcp-server-list-cache';
import { PostgresResourceStore } from '../../adapters/persistence/postgres-resource.store';
import { RecordSecrets } from '../../adapters/persistence/record-secrets';
import { StoredSecrets } from '../../adapters/persistence/stored-secrets';
import { TypeormApiKeyRepository } from '../../adapters/persistence/typeorm-api-key.repository';
import { TypeormUnitOfWork } from '../../adapters/persistence/typeorm-unit-of-work';
import { PostgresUsageBudget } from '../../adapters/persistence/usage/postgres-usage-budget';
import { EcdsaReportSignatureVerifier } from '../../adapters/secret-scanning/ecdsa-report-signature-verifier';
import { ScannerKeyList } from '../../adapters/secret-scanning/scanner-key-list';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/**
 * Keys: their crypto and stored-secret box, the hot path (key cache, the
 * last_used_at batch writer, the per-user MCP server lists, the change listener
 * that keeps them fresh), the unit of work, the key use-cases and
 * /api/v1/api-keys, and leak reports from a secret scanner.
 */
export function bindKeys(c: Container, config: Config): void {
  bindCrypto(c, config);
  bindHotPath(c);
  bindKeyUseCases(c);
  bindSecretScanning(c);
}

/** The key's crypto, and the box for stored secrets when SECRETS_KEY is set. */
function bindCrypto(c: Container, config: Config): void {
  c.bind<KeyHasher>(TOKENS.KeyHasher).toConstantValue(new Sha256KeyHasher());
  c.bind<KeyGenerator>(TOKENS.KeyGenerator).toConstantValue(new RandomKeyGenerator());
  c.bind<KeyPolicy>(TOKENS.KeyPolicy).toConstantValue({ maxKeysPerUser: config.maxKeysPerUser });
  const secrets = secretBoxFor(config);
  if (secrets) {
    c.bind<SecretBox>(TOKENS.SecretBox).toConstantValue(secrets);
    c.bind(StoredSecrets).toResolvedValue(
      (ds: DataSource, box: SecretBox) => new StoredSecrets(ds, new RecordSecrets(box)),
      [TOKENS.DataSource, TOKENS.SecretBox],
    );
  }
}

/**
 * None without a key: the service resolves one first (withSecretsKey), while
 * internal jobs, which never read stored secrets, may run without it.
 */
function secretBoxFor(config: Config): AesGcmSecretBox | undefined {
  return config.secrets.key ? new AesGcmSecretBox(config.secrets.key, config.secrets.previous) : undefined;
}

/** The unit of work every recorded change runs in, and the seven key use-cases behind /api/v1/api-keys. */
function bindKeyUseCases(c: Container): void {
  c.bind<UnitOfWork>(TOKENS.UnitOfWork).toResolvedValue(
    (ds: DataSource, secrets: RecordSecrets, cache: KeyCache, servers: McpServerListCache) =>
      new TypeormUnitOfWork(ds, secrets, {
        keys: (ids) => ids.forEach((id) => cache.evict(id)),
        serverOwners: (owners) => owners.forEach((owner) => servers.lists.evict(owner)),
      }),
    [TOKENS.DataSource, RecordSecrets, TOKENS.KeyCache, McpServerListCache],
  );
  c.bind(CreateKey).toResolvedValue(
    (work: UnitOfWork, hasher: KeyHasher, gen: KeyGenerator, clock: Clock, policy: KeyPolicy) =>
      new CreateKey(work, hasher, gen, clock, policy),
    [TOKENS.UnitOfWork, TOKENS.KeyHasher, TOKENS.KeyGenerator, TOKENS.Clock, TOKENS.KeyPolicy],
  );
  c.bind(ListKeys).toResolvedValue(
    (keys: ApiKeyRepository, quotas: QuotaBalances, clock: Clock) => new ListKeys(keys, quotas, clock),
    [TOKENS.ApiKeyRepository, TOKENS.QuotaBalances, TOKENS.Clock],
  );
  // GET /api/v1/api-keys/:id (the console's key detail): the list's repository and balances, one key.
  c.bind(GetKey).toResolvedValue(
    (keys: ApiKeyRepository, quotas: QuotaBalances, clock: Clock) => new GetKey(keys, quotas, clock),
    [TOKENS.ApiKeyRepository, TOKENS.QuotaBalances, TOKENS.Clock],
  );
  c.bind(RevokeKey).toResolvedValue((work: UnitOfWork, clock: Clock) => new RevokeKey(work, clock), [TOKENS.UnitOfWork, TOKENS.Clock]);
  c.bind(RollKey).toResolvedValue(
    (work: UnitOfWork, hasher: KeyHasher, gen: KeyGenerator, clock: Clock, policy: KeyPolicy) =>
      new RollKey(work, hasher, gen, clock, policy),
    [TOKENS.UnitOfWork, TOKENS.KeyHasher, TOKENS.KeyGenerator, TOKENS.Clock, TOKENS.KeyPolicy],
  );
  c.bind(UpdateKey).toResolvedValue((work: UnitOfWork, clock: Clock) => new UpdateKey(work, clock), [TOKENS.UnitOfWork, TOKENS.Clock]);
  c.bind(ValidateKey).toResolvedValue(
    (keys: ApiKeyRepository, hasher: KeyHasher, clock: Clock, tracing: Tracing) =>
      tracing.on ? new TracedValidateKey(tracing, keys, hasher, clock) : new ValidateKey(keys, hasher, clock),
    [TOKENS.ApiKeyRepository, TOKENS.KeyHasher, TOKENS.Clock, TOKENS.Tracing],
  );
  c.bind(ApiKeysController).toResolvedValue(
    (create: CreateKey, list: ListKeys, get: GetKey, revoke: RevokeKey, roll: RollKey, update: UpdateKey) =>
      new ApiKeysController({ create, list, get, revoke, roll, update }),
    [CreateKey, ListKeys, GetKey, RevokeKey, RollKey, UpdateKey],
  );
}

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
function bindHotPath(c: Container): void {
  c.bind(TypeormApiKeyRepository).toResolvedValue((ds: DataSource) => new TypeormApiKeyRepository(ds.manager), [TOKENS.DataSource]);
  c.bind<KeyCache>(TOKENS.KeyCache).toResolvedValue(
    ({ hotPath }: Config) => new KeyCache(hotPath.keyCacheEntries, hotPath.staleAfterMs),
    [TOKENS.Config],
  );
  c.bind(LastUsedCoalescer).toResolvedValue(
    (repository: TypeormApiKeyRepository, { hotPath }: Config, metrics: Metrics) =>
      new LastUsedCoalescer(
        (batch) => repository.touchLastUsedBatch(batch),
        hotPath.lastUsedFlushMs,
        () => metrics.lastUsedFlushBatches.inc(),
      ),
    [TypeormApiKeyRepository, TOKENS.Config, TOKENS.Metrics],
  );
  // The key repository as ValidateKey should use it: cached lookups, coalesced last_used_at.
  c.bind<ApiKeyRepository>(TOKENS.ApiKeyRepository).toResolvedValue(
    (repository: TypeormApiKeyRepository, cache: KeyCache, lastUsed: LastUsedCoalescer, metrics: Metrics, tracing: Tracing) => {
      const counted = (hit: boolean) => metrics.keyCacheLookups.inc(hit ? 'hit' : 'miss');
      // Inside the keygate.key.validate span: the lookup's hit or miss is its attribute.
      const traced = (hit: boolean) => (counted(hit), tracing.annotate({ 'keygate.key.cache': hit ? 'hit' : 'miss' }));
      return new HotPathApiKeyRepository(repository, cache, lastUsed, tracing.on ? traced : counted);
    },
    [TypeormApiKeyRepository, TOKENS.KeyCache, LastUsedCoalescer, TOKENS.Metrics, TOKENS.Tracing],
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
        logger.warn(
          { mcpServerId: record.id },
          `MCP server ${record.id}: its stored header values do not decrypt (${reason}); its tools are withheld`,
        );
      };
      return new McpServerListCache(
        new EncryptedResourceStore(new PostgresResourceStore(dataSource.manager), secrets, unreadable),
        hotPath.serverListCacheEntries,
        hotPath.staleAfterMs,
      );
    },
    [TOKENS.DataSource, TOKENS.Config, RecordSecrets, TOKENS.Logger, TOKENS.Metrics],
  );
  c.bind<ResourceStore>(TOKENS.ResourceStore).toService(McpServerListCache);
  // The caches first: the sessions' handlers of the same notifications read through them.
  c.bind(ChangeListener).toResolvedValue(
    (
      dataSource: DataSource,
      cache: KeyCache,
      servers: McpServerListCache,
      usage: PostgresUsageBudget,
      sessions: NotifiedCache[] | undefined,
      relay: NotifiedCache[] | undefined,
      subscriptions: NotifiedCache[] | undefined,
      toolRules: NotifiedCache[] | undefined,
    ) =>
      new ChangeListener(
        [cache, servers.lists, usage, ...(sessions ?? []), ...(relay ?? []), ...(subscriptions ?? []), ...(toolRules ?? [])],
        { url: connectionUrl(dataSource) },
      ),
    [
      TOKENS.DataSource,
      TOKENS.KeyCache,
      McpServerListCache,
      PostgresUsageBudget,
      { serviceIdentifier: TOKENS.SessionChannels, optional: true },
      { serviceIdentifier: TOKENS.RelayChannels, optional: true },
      { serviceIdentifier: TOKENS.SubscriptionChannels, optional: true },
      { serviceIdentifier: TOKENS.ToolRuleChannels, optional: true },
    ],
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

/** GitHub's list is a few keys in a few KiB. */
const KEY_LIST = { timeoutMs: 5_000, maxBytes: 64 * 1024, maxKeys: 32, refetchIntervalMs: 60_000, maxAgeMs: 3_600_000 };

/**
 * Leak reports from a secret scanner. With SECRET_SCANNING_KEYS_URL unset the
 * routes are an empty router, so the path answers the 404 of any unknown
 * route, and nothing else here is ever built.
 */
function bindSecretScanning(c: Container): void {
  c.bind(ScannerKeyList).toResolvedValue(
    ({ secretScanning }: Config, clock: Clock, logger: Logger) =>
      new ScannerKeyList({
        ...KEY_LIST,
        url: keysUrlOf(secretScanning.keysUrl),
        now: () => clock.now().getTime(),
        warn: (message, error) => logger.warn(error === undefined ? {} : { err: error }, message),
      }),
    [TOKENS.Config, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind<ReportSignatureVerifier>(TOKENS.ReportSignatureVerifier).toResolvedValue(
    (keys: ScannerKeyList) => new EcdsaReportSignatureVerifier(keys),
    [ScannerKeyList],
  );
  c.bind(ReportLeakedKeys).toResolvedValue(
    (signatures: ReportSignatureVerifier, work: UnitOfWork, hasher: KeyHasher, clock: Clock) =>
      new ReportLeakedKeys(signatures, work, hasher, clock),
    [TOKENS.ReportSignatureVerifier, TOKENS.UnitOfWork, TOKENS.KeyHasher, TOKENS.Clock],
  );
  c.bind(SecretScanningController).toResolvedValue((report: ReportLeakedKeys) => new SecretScanningController(report), [ReportLeakedKeys]);
  c.bind<Router>(TOKENS.SecretScanningRoutes).toDynamicValue((context: ResolutionContext) =>
    context.get<Config>(TOKENS.Config).secretScanning.keysUrl ? context.get(SecretScanningController).router() : Router(),
  );
}

function keysUrlOf(url: string | null): string {
  if (url === null) throw new Error('SECRET_SCANNING_KEYS_URL is unset: nothing should ask for the scanner key list');
  return url;
}
