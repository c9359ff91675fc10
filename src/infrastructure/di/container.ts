import 'reflect-metadata';
import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { ApiKeyRepository } from '../../application/ports/api-key-repository.port';
import { Clock } from '../../application/ports/clock.port';
import { KeyGenerator } from '../../application/ports/key-generator.port';
import { KeyHasher } from '../../application/ports/key-hasher.port';
import { KeyPolicy } from '../../application/ports/key-policy.port';
import { SecretBox } from '../../application/ports/secret-box.port';
import { CreateKey } from '../../application/use-cases/create-key/create-key.use-case';
import { FilterTools } from '../../application/use-cases/gateway/filter-tools/filter-tools.use-case';
import { ListKeys } from '../../application/use-cases/list-keys/list-keys.use-case';
import { RevokeKey } from '../../application/use-cases/revoke-key/revoke-key.use-case';
import { RollKey } from '../../application/use-cases/roll-key/roll-key.use-case';
import { UpdateKey } from '../../application/use-cases/update-key/update-key.use-case';
import { GetKey } from '../../application/use-cases/get-key/get-key.use-case';
import { UnitOfWork } from '../../application/ports/unit-of-work.port';
import { TypeormUnitOfWork } from '../../adapters/persistence/typeorm-unit-of-work';
import { AuditRetention } from '../../adapters/persistence/audit/audit-retention';
import { ValidateKey } from '../../application/use-cases/validate-key/validate-key.use-case';
import { AesGcmSecretBox } from '../../adapters/crypto/aes-gcm-secret-box';
import { RandomKeyGenerator } from '../../adapters/crypto/random-key-generator';
import { Sha256KeyHasher } from '../../adapters/crypto/sha256-key-hasher';
import { SystemClock } from '../../adapters/crypto/system-clock';
import { ApiKeysController } from '../../adapters/http/controllers/api-keys.controller';
import { ChangeListener } from '../../adapters/persistence/hot-path/change-listener';
import { KeyCache } from '../../adapters/persistence/hot-path/key-cache';
import { LastUsedCoalescer } from '../../adapters/persistence/hot-path/last-used-coalescer';
import { McpServerListCache } from '../../adapters/persistence/hot-path/mcp-server-list-cache';
import { RecordSecrets } from '../../adapters/persistence/record-secrets';
import { StoredSecrets } from '../../adapters/persistence/stored-secrets';
import { Metrics } from '../../adapters/observability/metrics';
import { Logger } from 'pino';
import { createLogger } from '../logging/logger';
import { Config } from '../config/config';
import { Database } from '../database/database';
import { GroupCommitAuditQueue } from '../../adapters/persistence/audit/group-commit-audit-queue';
import { bindAudit } from './audit.bindings';
import { bindForwardAuth } from './forward-auth.bindings';
import { bindHotPath } from './hot-path.bindings';
import { bindHttpEdge } from './http-edge.bindings';
import { bindKeyDetail } from './key-detail.bindings';
import { Lifecycle } from './lifecycle';
import { ToolChangeWatcher } from '../../adapters/persistence/mcp-sessions/tool-change-watcher';
import { bindMcp } from './mcp.bindings';
import { bindMcpOAuth } from './mcp-oauth.bindings';
import { bindMcpCapabilities } from './mcp-capabilities.bindings';
import { bindMcpListen } from './mcp-listen.bindings';
import { bindMcpContent } from './mcp-content.bindings';
import { bindMcpFastPaths } from './mcp-fast-path.bindings';
import { bindMcpSessions } from './mcp-sessions.bindings';
import { bindMcpRelay } from './mcp-relay.bindings';
import { bindMcpPostStreams } from './mcp-post-streams.bindings';
import { bindMcpServerViews } from './mcp-servers-view.bindings';
import { bindMcpServers } from './mcp-servers.bindings';
import { bindMcpSubscriptions } from './mcp-subscriptions.bindings';
import { SessionPurge } from '../../adapters/persistence/mcp-sessions/session-purge';
import { SessionStreams } from '../../adapters/mcp/sessions/session-streams';
import { bindScopeContexts } from './scope-context.bindings';
import { bindSecretScanning } from './secret-scanning.bindings';
import { bindToolPins } from './tool-pins.bindings';
import { bindUsage } from './usage.bindings';
import { PostgresUsageBudget } from '../../adapters/persistence/usage/postgres-usage-budget';
import { QuotaBalances } from '../../application/ports/quota-balances.port';
import { TOKENS } from './tokens';

export interface ContainerParts {
  config: Config;
  /** The pool, and how this entry point closes it: the Lifecycle's last stop. */
  database: Database;
  /** The port this process listens on: with JWT_JWKS_URI unset, the development issuer's JWKS is read from it. */
  port?: number;
  /** Node's own series (heap, event loop) on /metrics: the service only, not one per test app. */
  processMetrics?: boolean;
  /** Where adapters report what they survive (an upstream that failed); LOG_LEVEL's logger when absent. */
  logger?: Logger;
  /** Tests pin time; everything else uses the system clock. */
  clock?: Clock;
}

/**
 * The composition root: the only place that builds adapters and use-cases and
 * knows which adapter serves which port. Classes carry no decorators; each is
 * built by a factory from its tokens, once, when something first asks for it,
 * so an internal job builds neither the HTTP edge nor the upstream MCP client.
 * The *.bindings.ts files beside this one are its parts, by area; entry points
 * (main.ts, openKeygate, the tests' app) take what they need from the
 * container, and start and stop its Lifecycle.
 */
export function buildContainer(parts: ContainerParts): Container {
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind<Config>(TOKENS.Config).toConstantValue(parts.config);
  c.bind<Database>(TOKENS.Database).toConstantValue(parts.database);
  c.bind<DataSource>(TOKENS.DataSource).toConstantValue(parts.database.dataSource);
  c.bind<Clock>(TOKENS.Clock).toConstantValue(parts.clock ?? new SystemClock());
  c.bind<KeyHasher>(TOKENS.KeyHasher).toConstantValue(new Sha256KeyHasher());
  c.bind<KeyGenerator>(TOKENS.KeyGenerator).toConstantValue(new RandomKeyGenerator());
  c.bind<KeyPolicy>(TOKENS.KeyPolicy).toConstantValue({ maxKeysPerUser: parts.config.maxKeysPerUser });
  c.bind<Metrics>(TOKENS.Metrics).toResolvedValue(() => new Metrics({ processMetrics: parts.processMetrics }));
  c.bind<Logger>(TOKENS.Logger).toResolvedValue(() => parts.logger ?? createLogger(parts.config.ops.logLevel));
  const secrets = secretBoxFor(parts.config);
  if (secrets) {
    c.bind<SecretBox>(TOKENS.SecretBox).toConstantValue(secrets);
    c.bind(StoredSecrets).toResolvedValue((ds: DataSource, box: SecretBox) => new StoredSecrets(ds, new RecordSecrets(box)), [TOKENS.DataSource, TOKENS.SecretBox]);
  }
  bindHotPath(c);
  bindAudit(c);
  bindUsage(c);
  bindMcpSessions(c);
  bindMcpRelay(c);
  bindMcpPostStreams(c);
  bindMcpSubscriptions(c);
  // Started in this order, stopped in the reverse: retention, the MCP session streams and purge, the listener, the quota credits handed back, the last last_used_at batch,
  // the audit events still to write, then the pool.
  c.bind(Lifecycle).toResolvedValue(
    (database: Database, lastUsed: LastUsedCoalescer, listener: ChangeListener, audit: GroupCommitAuditQueue, retention: AuditRetention,
      usage: PostgresUsageBudget, purge: SessionPurge, streams: SessionStreams, toolChanges: ToolChangeWatcher) =>
      new Lifecycle([
        { name: 'database pool', stop: () => database.close() },
        { name: 'audit event writer', stop: () => audit.stop() },
        { name: 'last_used_at writer', start: () => lastUsed.start(), stop: () => lastUsed.stop() },
        { name: 'usage budget (quota leases, rate windows)', start: () => usage.start(), stop: () => usage.stop() },
        // Always on: besides the caches, the quota leases hear of balance changes through it.
        // What it heard last is announced before the pool closes.
        { name: 'change listener', start: () => listener.start(), stop: async () => { await listener.stop(); await toolChanges.settled(); } },
        { name: 'MCP sessions (purge, open streams)', start: () => purge.start(), stop: async () => { streams.closeAll(); await purge.stop(); } },
        { name: 'audit retention', start: () => retention.start(), stop: () => retention.stop() },
      ]),
    [TOKENS.Database, LastUsedCoalescer, ChangeListener, GroupCommitAuditQueue, AuditRetention, PostgresUsageBudget, SessionPurge, SessionStreams, ToolChangeWatcher],
  );

  c.bind<UnitOfWork>(TOKENS.UnitOfWork).toResolvedValue(
    (ds: DataSource, secrets: RecordSecrets, cache: KeyCache, servers: McpServerListCache) => new TypeormUnitOfWork(ds, secrets, {
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
  c.bind(RevokeKey).toResolvedValue((work: UnitOfWork, clock: Clock) => new RevokeKey(work, clock), [TOKENS.UnitOfWork, TOKENS.Clock]);
  c.bind(RollKey).toResolvedValue(
    (work: UnitOfWork, hasher: KeyHasher, gen: KeyGenerator, clock: Clock, policy: KeyPolicy) => new RollKey(work, hasher, gen, clock, policy),
    [TOKENS.UnitOfWork, TOKENS.KeyHasher, TOKENS.KeyGenerator, TOKENS.Clock, TOKENS.KeyPolicy],
  );
  c.bind(UpdateKey).toResolvedValue((work: UnitOfWork, clock: Clock) => new UpdateKey(work, clock), [TOKENS.UnitOfWork, TOKENS.Clock]);
  c.bind(ValidateKey).toResolvedValue(
    (keys: ApiKeyRepository, hasher: KeyHasher, clock: Clock) => new ValidateKey(keys, hasher, clock),
    [TOKENS.ApiKeyRepository, TOKENS.KeyHasher, TOKENS.Clock],
  );
  c.bind(FilterTools).toConstantValue(new FilterTools());

  bindKeyDetail(c);
  c.bind(ApiKeysController).toResolvedValue(
    (create: CreateKey, list: ListKeys, get: GetKey, revoke: RevokeKey, roll: RollKey, update: UpdateKey) =>
      new ApiKeysController({ create, list, get, revoke, roll, update }),
    [CreateKey, ListKeys, GetKey, RevokeKey, RollKey, UpdateKey],
  );
  bindHttpEdge(c, parts.port);
  bindMcp(c);
  bindMcpServers(c);
  bindMcpOAuth(c);
  bindMcpContent(c);
  bindToolPins(c);
  bindMcpServerViews(c);
  bindMcpCapabilities(c);
  bindMcpListen(c);
  bindMcpFastPaths(c);
  bindScopeContexts(c);
  bindSecretScanning(c);
  bindForwardAuth(c);
  return c;
}

/**
 * None without a key: the service resolves one first (withSecretsKey), while
 * internal jobs, which never read stored secrets, may run without it.
 */
function secretBoxFor(config: Config): AesGcmSecretBox | undefined {
  return config.secrets.key ? new AesGcmSecretBox(config.secrets.key, config.secrets.previous) : undefined;
}
