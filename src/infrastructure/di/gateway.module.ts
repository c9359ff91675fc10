import { Container } from 'inversify';
import { randomBytes } from 'node:crypto';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { Clock } from '../../application/ports/clock.port';
import { ExternalTools } from '../../application/ports/external-tools.port';
import { ResourceStore } from '../../application/ports/resource-store.port';
import { ResourceSubscriptionStore } from '../../application/ports/resource-subscription-store.port';
import { SecretBox } from '../../application/ports/secret-box.port';
import { SessionBus } from '../../application/ports/session-bus.port';
import { UnitOfWork } from '../../application/ports/unit-of-work.port';
import { UpstreamAddressCheck } from '../../application/ports/upstream-address-check.port';
import { ItemListCache, ItemListing } from '../../application/ports/upstream-content.port';
import { ToolListCache, ToolListing, UpstreamMcp } from '../../application/ports/upstream-mcp.port';
import { UpstreamSessionStore } from '../../application/ports/upstream-session-store.port';
import { mcpServerPolicy } from '../../application/use-cases/gateway/external/mcp-server-policy';
import { ToolPins } from '../../application/use-cases/gateway/external/tool-pins';
import { UpstreamListings } from '../../application/use-cases/gateway/external/upstream-listings';
import { UpstreamToolDirectory } from '../../application/use-cases/gateway/external/upstream-tool-directory';
import { FilterTools } from '../../application/use-cases/gateway/filter-tools/filter-tools.use-case';
import { ListTools } from '../../application/use-cases/gateway/list-tools/list-tools.use-case';
import { CreateMcpServer } from '../../application/use-cases/gateway/mcp-servers/create-mcp-server.use-case';
import { DeleteMcpServer } from '../../application/use-cases/gateway/mcp-servers/delete-mcp-server.use-case';
import { GetMcpServer } from '../../application/use-cases/gateway/mcp-servers/get-mcp-server.use-case';
import { ListMcpServers } from '../../application/use-cases/gateway/mcp-servers/list-mcp-servers.use-case';
import { McpServerUseCases } from '../../application/use-cases/gateway/mcp-servers/mcp-server-use-cases';
import { UpdateMcpServer } from '../../application/use-cases/gateway/mcp-servers/update-mcp-server.use-case';
import { AuthorizeToolCall } from '../../application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { ResourcePolicy } from '../../application/use-cases/gateway/built-in/resource-policy';
import { ToolRuleGate } from '../../application/use-cases/gateway/tools/tool-rule-gate';
import { ClaimToolCallApproval } from '../../application/use-cases/approvals/claim-tool-call-approval.use-case';
import { RuleCompiler } from '../../application/ports/rule-compiler.port';
import { CelRuleCompiler } from '../../adapters/rules/cel-rule-compiler';
import { BuiltInRuleReader, ToolRuleStore } from '../../application/ports/tool-rule-store.port';
import { TypeormToolRuleStore } from '../../adapters/persistence/typeorm-tool-rule-store';
import { CachedBuiltInRules } from '../../adapters/persistence/cached-built-in-rules';
import { NotifiedCache } from '../../adapters/persistence/hot-path/change-listener';
import { ListToolRules } from '../../application/use-cases/tool-rules/list-tool-rules.use-case';
import { PutToolRules } from '../../application/use-cases/tool-rules/put-tool-rules.use-case';
import { ToolRulesController } from '../../adapters/http/controllers/tool-rules.controller';
import { CallTool } from '../../application/use-cases/gateway/tools/call-tool.use-case';
import { EndpointCapabilities } from '../../application/use-cases/gateway/upstream-view/endpoint-capabilities';
import { FindEndpointCapabilities } from '../../application/use-cases/gateway/upstream-view/find-endpoint-capabilities.use-case';
import { FindServerView } from '../../application/use-cases/gateway/upstream-view/find-server-view.use-case';
import { ValidateKey } from '../../application/use-cases/validate-key/validate-key.use-case';
import { AesGcmSecretBox } from '../../adapters/crypto/aes-gcm-secret-box';
import { Sha256ContentDigest } from '../../adapters/crypto/sha256-content-digest';
import { UsageGate } from '../../adapters/edge/usage-gate';
import { McpServersController } from '../../adapters/http/controllers/mcp-servers.controller';
import { McpConnectionsController } from '../../adapters/http/controllers/mcp-connections.controller';
import { ConnectionSecrets } from '../../adapters/persistence/connections/connection-secrets';
import { PostgresMcpConnectionStore } from '../../adapters/persistence/connections/postgres-mcp-connection.store';
import { RecordSecrets } from '../../adapters/persistence/record-secrets';
import { McpConnectionStore } from '../../application/ports/mcp-connection-store.port';
import { UpstreamCredentials } from '../../application/use-cases/gateway/external/upstream-credentials';
import { ExchangedTokens } from '../../application/use-cases/gateway/external/exchanged-tokens';
import { LruExpiringCache } from '../../adapters/mcp/upstream/lru-expiring-cache';
import { KeyHasher } from '../../application/ports/key-hasher.port';
import { REFRESH_DEFAULTS, RefreshingAccessTokens } from '../../application/use-cases/gateway/external/refreshing-access-tokens';
import { connectPageUrl } from '../config/connect-page-url';
import { clientMetadataDocumentUrl, connectionCallbackUrl } from '../config/connection-callback-url';
import { ConnectionAttemptStore } from '../../application/ports/connection-attempt-store.port';
import { ClientRegistrationStore } from '../../application/ports/client-registration-store.port';
import { UpstreamAuthorization } from '../../application/ports/upstream-authorization.port';
import { OAuthConnectionStart } from '../../application/use-cases/gateway/mcp-connections/oauth-connection-start';
import { CompleteOAuthConnection } from '../../application/use-cases/gateway/mcp-connections/complete-oauth-connection.use-case';
import { ConnectMcpServer } from '../../application/use-cases/gateway/mcp-connections/connect-mcp-server.use-case';
import { DisconnectMcpServer } from '../../application/use-cases/gateway/mcp-connections/disconnect-mcp-server.use-case';
import { GetMcpConnection } from '../../application/use-cases/gateway/mcp-connections/get-mcp-connection.use-case';
import { McpServerFactory } from '../../adapters/mcp/mcp-server.factory';
import { McpController } from '../../adapters/mcp/mcp.controller';
import { InputRequiredRounds } from '../../adapters/mcp/modern/input-required-rounds';
import { ListenCapabilities } from '../../adapters/mcp/modern/listen-capabilities';
import { ListenStreams } from '../../adapters/mcp/modern/listen-streams';
import { ModernHttp } from '../../adapters/mcp/modern/modern-http';
import { ModernServerFactory } from '../../adapters/mcp/modern/modern-server.factory';
import { ModernToolsCallFastPath } from '../../adapters/mcp/modern/modern-tools-call-fast-path';
import { ModernToolsListFastPath } from '../../adapters/mcp/modern/modern-tools-list-fast-path';
import { ModernUpstreamCallFastPath } from '../../adapters/mcp/modern/modern-upstream-call-fast-path';
import { ParkedCalls } from '../../adapters/mcp/modern/parked-calls';
import { SealedRequestState } from '../../adapters/mcp/modern/sealed-request-state';
import { McpOAuth } from '../../adapters/mcp/oauth/mcp-oauth';
import { SessionRelays } from '../../adapters/mcp/relay/session-relays';
import { McpSessionEdge } from '../../adapters/mcp/sessions/mcp-session-edge';
import { ToolCallRecorder } from '../../adapters/mcp/tool-call-recorder';
import { ToolCallRunner } from '../../adapters/mcp/tool-call-runner';
import { ToolsCallFastPath } from '../../adapters/mcp/tools-call-fast-path';
import { SessionToolCallFastPath } from '../../adapters/mcp/sessions/session-tool-call-fast-path';
import { ToolsListFastPath } from '../../adapters/mcp/tools-list-fast-path';
import { UpstreamContentUseCases, upstreamContentUseCases } from '../../adapters/mcp/upstream-content-handlers';
import { GuardedAddressCheck } from '../../adapters/mcp/upstream/guarded-address-check';
import { LruLoadingCache } from '../../adapters/mcp/upstream/lru-loading-cache';
import { TracedAuthorizeToolCall } from '../../adapters/observability/traced-authorize-tool-call';
import { TracedUpstreamContent } from '../../adapters/observability/traced-upstream-content';
import { TracedUpstreamMcp } from '../../adapters/observability/traced-upstream-mcp';
import { Tracing } from '../../adapters/observability/tracing';
import { SdkUpstreamMcp } from '../../adapters/mcp/upstream/sdk-upstream-mcp';
import { UpstreamAddressGuard } from '../../adapters/mcp/upstream/upstream-address-guard';
import { UpstreamProfile } from '../../adapters/mcp/upstream/upstream-profile';
import { TypeormToolPinStore } from '../../adapters/persistence/typeorm-tool-pin-store';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/**
 * The MCP gateway: the upstream MCP client and the external tools behind it,
 * tool listing, authorization and calls, the /mcp controller and its SDK
 * server, upstream server records (the mcp_servers tool and REST), their
 * resources and prompts, pins, per-server views and capabilities, and the
 * answers given without an SDK server.
 */
export function bindGateway(c: Container): void {
  c.bind(FilterTools).toConstantValue(new FilterTools());
  bindMcp(c);
  bindMcpServers(c);
  bindMcpContent(c);
  bindToolPins(c);
  bindMcpServerViews(c);
  bindMcpCapabilities(c);
  bindMcpFastPaths(c);
}

/**
 * Bounds of the upstream tool-list cache. A listing may reach MCP_UPSTREAM_MAX_BYTES
 * per page, so its JSON size bounds the heap, not the count: 16 M characters of
 * tool JSON took 26 MB of heap once parsed (measured), well within the 192 MB
 * the service runs with.
 */
const UPSTREAM_LIST_CACHE = { maxEntries: 10_000, maxChars: 16 * 1024 * 1024 };
/** Upstream profiles (revision, capabilities, discover result), one per server version: bounded and kept as capabilities are (bindMcpCapabilities). */
const PROFILE_CACHE_ENTRIES = 10_000;
/** Upstream tokens exchanged from callers' own (token_exchange servers): one per subject token and server. */
const EXCHANGED_TOKEN_ENTRIES = 10_000;

type Log = (error: unknown) => void;

/** The MCP gateway: tool use-cases, the upstream client behind them, the /mcp edge (the resource store is bound with the hot path). */
function bindMcp(c: Container): void {
  c.bind<Log>(TOKENS.McpLog).toResolvedValue(
    (logger: Logger) => (error) => (typeof error === 'string' ? logger.warn(error) : logger.error({ err: error }, 'MCP request failed')),
    [TOKENS.Logger],
  );
  // By its class too: the same client (one connection pool) serves UpstreamContent (bindMcpContent).
  c.bind(SdkUpstreamMcp).toResolvedValue(
    ({ mcp }: Config, store: UpstreamSessionStore | undefined) =>
      new SdkUpstreamMcp(
        new UpstreamAddressGuard(mcp.upstreamAllowlist),
        {
          timeoutMs: mcp.upstreamTimeoutMs,
          maxBytes: mcp.upstreamMaxBytes,
          maxPages: mcp.upstreamMaxPages,
          maxTools: mcp.upstreamMaxTools,
          relayedTimeoutMs: mcp.relayCallTimeoutMs,
        },
        store,
        new LruLoadingCache<UpstreamProfile>({ maxEntries: PROFILE_CACHE_ENTRIES, ttlMs: mcp.upstreamListTtlSeconds * 1000 }),
      ),
    [TOKENS.Config, { serviceIdentifier: TOKENS.UpstreamSessionStore, optional: true }],
  );
  c.bind<UpstreamMcp>(TOKENS.UpstreamMcp).toResolvedValue(
    (upstream: SdkUpstreamMcp, tracing: Tracing) => (tracing.on ? new TracedUpstreamMcp(upstream, tracing) : upstream),
    [SdkUpstreamMcp, TOKENS.Tracing],
  );
  c.bind<ToolListCache>(TOKENS.ToolListCache).toResolvedValue(
    ({ mcp }: Config) => new LruLoadingCache<ToolListing>({ ...UPSTREAM_LIST_CACHE, ttlMs: mcp.upstreamListTtlSeconds * 1000 }),
    [TOKENS.Config],
  );
  // One for tools and for resources and prompts: one refresher, one cache of exchanged tokens.
  c.bind(UpstreamCredentials).toResolvedValue(
    (
      connections: McpConnectionStore,
      config: Config,
      authorization: UpstreamAuthorization,
      work: UnitOfWork,
      clock: Clock,
      hasher: KeyHasher,
    ) => {
      const tokens = new RefreshingAccessTokens(connections, authorization, work, clock, {
        ...REFRESH_DEFAULTS,
        waitMs: config.mcp.upstreamTimeoutMs,
      });
      const exchangeCache = new LruExpiringCache<string>({ maxEntries: EXCHANGED_TOKEN_ENTRIES, now: () => clock.now().getTime() });
      const exchanged = new ExchangedTokens(authorization, exchangeCache, hasher, clock);
      return new UpstreamCredentials(connections, connectPageUrl(config), tokens, exchanged);
    },
    [TOKENS.McpConnectionStore, TOKENS.Config, TOKENS.UpstreamAuthorization, TOKENS.UnitOfWork, TOKENS.Clock, TOKENS.KeyHasher],
  );
  c.bind<ExternalTools>(TOKENS.ExternalTools).toResolvedValue(
    (store: ResourceStore, upstream: UpstreamMcp, lists: ToolListCache, log: Log, pins: ToolPins, credentials: UpstreamCredentials) =>
      new UpstreamToolDirectory(store, upstream, lists, log, pins, credentials),
    [TOKENS.ResourceStore, TOKENS.UpstreamMcp, TOKENS.ToolListCache, TOKENS.McpLog, ToolPins, UpstreamCredentials],
  );
  bindToolRules(c);
  c.bind(AuthorizeToolCall).toResolvedValue(
    (external: ExternalTools, rules: ToolRuleGate, tracing: Tracing) =>
      tracing.on ? new TracedAuthorizeToolCall(tracing, external, rules) : new AuthorizeToolCall(external, rules),
    [TOKENS.ExternalTools, ToolRuleGate, TOKENS.Tracing],
  );
  c.bind(ListTools).toResolvedValue(
    (filter: FilterTools, external: ExternalTools) => new ListTools(filter, external),
    [FilterTools, TOKENS.ExternalTools],
  );
  c.bind(CallTool).toResolvedValue(
    (store: ResourceStore, external: ExternalTools, config: Config, servers: McpServerUseCases, compiler: RuleCompiler) =>
      new CallTool(store, { mcp_servers: serverPolicy(config, compiler) }, external, servers),
    [TOKENS.ResourceStore, TOKENS.ExternalTools, TOKENS.Config, TOKENS.McpServerUseCases, TOKENS.RuleCompiler],
  );
  c.bind(McpServerFactory).toResolvedValue(
    (
      list: ListTools,
      call: CallTool,
      log: Log,
      recorder: ToolCallRecorder,
      content: UpstreamContentUseCases,
      relays: SessionRelays,
      capabilities: FindEndpointCapabilities,
    ) => new McpServerFactory({ listTools: list, callTool: call, log, recorder, content, relays, capabilities }),
    [ListTools, CallTool, TOKENS.McpLog, ToolCallRecorder, TOKENS.UpstreamContentUseCases, SessionRelays, FindEndpointCapabilities],
  );
  c.bind(SealedRequestState).toResolvedValue(
    // Internal jobs may run without SECRETS_KEY; the service always has one (withSecretsKey), so every replica opens every state.
    (box: SecretBox | undefined, clock: Clock) => new SealedRequestState(box ?? new AesGcmSecretBox(randomBytes(32)), clock),
    [{ serviceIdentifier: TOKENS.SecretBox, optional: true }, TOKENS.Clock],
  );
  c.bind(ParkedCalls).toResolvedValue(
    (bus: SessionBus, { mcp }: Config) =>
      new ParkedCalls(bus, {
        callTimeoutMs: mcp.relayCallTimeoutMs,
        maxPerReplica: mcp.maxParkedCallsPerReplica,
        maxPerKey: mcp.maxParkedCallsPerKey,
      }),
    [TOKENS.SessionBus, TOKENS.Config],
  );
  c.bind(ModernHttp).toResolvedValue(
    (
      list: ListTools,
      call: CallTool,
      log: Log,
      recorder: ToolCallRecorder,
      capabilities: ListenCapabilities,
      content: UpstreamContentUseCases,
      states: SealedRequestState,
      parked: ParkedCalls,
      toolsList: ModernToolsListFastPath,
      toolsCall: ModernToolsCallFastPath,
      listens: ListenStreams,
      upstreamCall: ModernUpstreamCallFastPath,
    ) =>
      new ModernHttp(
        new ModernServerFactory({ listTools: list, callTool: call, log, recorder, capabilities, content, states, parkedCalls: parked }),
        [toolsList, toolsCall, upstreamCall],
        listens,
      ),
    [
      ListTools,
      CallTool,
      TOKENS.McpLog,
      ToolCallRecorder,
      ListenCapabilities,
      TOKENS.UpstreamContentUseCases,
      SealedRequestState,
      ParkedCalls,
      ModernToolsListFastPath,
      ModernToolsCallFastPath,
      ListenStreams,
      ModernUpstreamCallFastPath,
    ],
  );
  c.bind(McpController).toResolvedValue(
    (
      validate: ValidateKey,
      authorize: AuthorizeToolCall,
      servers: McpServerFactory,
      config: Config,
      list: ListTools,
      recorder: ToolCallRecorder,
      calls: ToolsCallFastPath,
      usage: UsageGate,
      sessions: McpSessionEdge,
      views: FindServerView,
      modern: ModernHttp,
      oauth: McpOAuth | undefined,
      approvals: ClaimToolCallApproval,
      sessionCalls: SessionToolCallFastPath,
      tracing: Tracing,
    ) =>
      new McpController({
        validateKey: validate,
        authorize,
        servers,
        guard: config.mcp,
        listFastPath: new ToolsListFastPath(list),
        recorder,
        callFastPath: calls,
        usage,
        sessions,
        findView: views,
        modern,
        oauth,
        approvals,
        sessionCallFastPath: sessionCalls,
        tracing,
      }),
    [
      ValidateKey,
      AuthorizeToolCall,
      McpServerFactory,
      TOKENS.Config,
      ListTools,
      ToolCallRecorder,
      ToolsCallFastPath,
      UsageGate,
      McpSessionEdge,
      FindServerView,
      ModernHttp,
      { serviceIdentifier: McpOAuth, optional: true },
      ClaimToolCallApproval,
      SessionToolCallFastPath,
      TOKENS.Tracing,
    ],
  );
}

/** The most a REST registration waits on DNS before leaving the address to the connection-time check. */
const ADDRESS_CHECK_TIMEOUT_MS = 5000;

/**
 * Upstream MCP server records: one set of use-cases, called by the
 * mcp_servers tool (CallTool, bindMcp) and by /api/v1/mcp-servers.
 * A registration's address is checked by the rule every connection uses
 * (MCP_UPSTREAM_ALLOWLIST), with a guard of its own.
 */
function bindMcpServers(c: Container): void {
  c.bind<UpstreamAddressCheck>(TOKENS.UpstreamAddressCheck).toResolvedValue(
    ({ mcp }: Config, logger: Logger) =>
      new GuardedAddressCheck(
        new UpstreamAddressGuard(mcp.upstreamAllowlist),
        Math.min(mcp.upstreamTimeoutMs, ADDRESS_CHECK_TIMEOUT_MS),
        (message) => logger.warn(message),
      ),
    [TOKENS.Config, TOKENS.Logger],
  );
  c.bind<McpServerUseCases>(TOKENS.McpServerUseCases).toResolvedValue(
    (
      store: ResourceStore,
      work: UnitOfWork,
      clock: Clock,
      pins: ToolPins,
      addresses: UpstreamAddressCheck,
      config: Config,
      compiler: RuleCompiler,
    ) => {
      const policy = serverPolicy(config, compiler);
      return {
        list: new ListMcpServers(store, policy, pins),
        get: new GetMcpServer(store, policy, pins),
        create: new CreateMcpServer(work, clock, policy, addresses),
        update: new UpdateMcpServer(work, clock, policy, pins, addresses),
        remove: new DeleteMcpServer(work, clock),
      };
    },
    [TOKENS.ResourceStore, TOKENS.UnitOfWork, TOKENS.Clock, ToolPins, TOKENS.UpstreamAddressCheck, TOKENS.Config, TOKENS.RuleCompiler],
  );
  c.bind<McpConnectionStore>(TOKENS.McpConnectionStore).toResolvedValue(
    (ds: DataSource, secrets: RecordSecrets, logger: Logger) =>
      // The connection's id and the box's reason (a key id at most), never a value.
      new PostgresMcpConnectionStore(ds.manager, new ConnectionSecrets(secrets.box), (connectionId, reason) =>
        logger.warn({ mcpConnectionId: connectionId }, `a stored MCP connection secret does not decrypt: ${reason}`),
      ),
    [TOKENS.DataSource, RecordSecrets, TOKENS.Logger],
  );
  c.bind(McpConnectionsController).toResolvedValue(
    (
      store: ResourceStore,
      connections: McpConnectionStore,
      work: UnitOfWork,
      clock: Clock,
      authorization: UpstreamAuthorization,
      attempts: ConnectionAttemptStore,
      config: Config,
      registrations: ClientRegistrationStore,
    ) =>
      new McpConnectionsController({
        get: new GetMcpConnection(store, connections),
        connect: new ConnectMcpServer(
          work,
          clock,
          new OAuthConnectionStart({
            authorization,
            attempts,
            registrations,
            clock,
            redirectUri: connectionCallbackUrl(config),
            metadataDocumentUrl: clientMetadataDocumentUrl(config),
          }),
        ),
        disconnect: new DisconnectMcpServer(work, clock, authorization),
        complete: new CompleteOAuthConnection(attempts, authorization, work, clock, registrations),
      }),
    [
      TOKENS.ResourceStore,
      TOKENS.McpConnectionStore,
      TOKENS.UnitOfWork,
      TOKENS.Clock,
      TOKENS.UpstreamAuthorization,
      TOKENS.ConnectionAttemptStore,
      TOKENS.Config,
      TOKENS.ClientRegistrationStore,
    ],
  );
  c.bind(McpServersController).toResolvedValue(
    (useCases: McpServerUseCases, connections: McpConnectionsController) => new McpServersController(useCases, connections),
    [TOKENS.McpServerUseCases, McpConnectionsController],
  );
}

/**
 * Bounds of the upstream resource, template and prompt list cache: as the
 * tool list cache's (bindMcp), a list's JSON size bounds the heap.
 */
const ITEM_LIST_CACHE = { maxEntries: 10_000, maxChars: 16 * 1024 * 1024 };

/** The upstream servers' resources, prompts and completion on /mcp: their listings, use-cases, and the object McpServerFactory takes. */
function bindMcpContent(c: Container): void {
  c.bind(UpstreamListings).toResolvedValue(
    (
      store: ResourceStore,
      upstream: SdkUpstreamMcp,
      config: Config,
      log: (message: string) => void,
      credentials: UpstreamCredentials,
      tracing: Tracing,
    ) => {
      const cache: ItemListCache = new LruLoadingCache<ItemListing>({
        ...ITEM_LIST_CACHE,
        ttlMs: config.mcp.upstreamListTtlSeconds * 1000,
      });
      const content = tracing.on ? new TracedUpstreamContent(upstream, tracing) : upstream;
      return new UpstreamListings(store, content, cache, log, credentials);
    },
    [TOKENS.ResourceStore, SdkUpstreamMcp, TOKENS.Config, TOKENS.McpLog, UpstreamCredentials, TOKENS.Tracing],
  );
  c.bind<UpstreamContentUseCases>(TOKENS.UpstreamContentUseCases).toResolvedValue(
    (listings: UpstreamListings, store: ResourceSubscriptionStore, { mcp }: Config) =>
      upstreamContentUseCases(listings, { store, maxPerSession: mcp.maxSubscriptionsPerSession }),
    [UpstreamListings, TOKENS.ResourceSubscriptionStore, TOKENS.Config],
  );
}

/** The longest a replica keeps its copy of the built-in tools' rules; changes drop it at once by NOTIFY. */
const BUILT_IN_RULES_TTL_MS = 60_000;

/** The rule language, the built-in tools' rules (table and copy), the gate AuthorizeToolCall asks, and their REST routes. */
function bindToolRules(c: Container): void {
  c.bind<RuleCompiler>(TOKENS.RuleCompiler).toResolvedValue(() => new CelRuleCompiler());
  c.bind<ToolRuleStore>(TOKENS.ToolRuleStore).toResolvedValue(
    (ds: DataSource) => new TypeormToolRuleStore(ds.manager),
    [TOKENS.DataSource],
  );
  c.bind(CachedBuiltInRules).toResolvedValue(
    (store: ToolRuleStore) => new CachedBuiltInRules(store, BUILT_IN_RULES_TTL_MS),
    [TOKENS.ToolRuleStore],
  );
  c.bind<BuiltInRuleReader>(TOKENS.BuiltInRuleReader).toService(CachedBuiltInRules);
  c.bind<NotifiedCache[]>(TOKENS.ToolRuleChannels).toResolvedValue((rules: CachedBuiltInRules) => [rules], [CachedBuiltInRules]);
  c.bind(ToolRuleGate).toResolvedValue(
    (compiler: RuleCompiler, clock: Clock, builtIns: BuiltInRuleReader) => new ToolRuleGate(compiler, clock, builtIns),
    [TOKENS.RuleCompiler, TOKENS.Clock, TOKENS.BuiltInRuleReader],
  );
  c.bind(ListToolRules).toResolvedValue((store: ToolRuleStore) => new ListToolRules(store), [TOKENS.ToolRuleStore]);
  c.bind(PutToolRules).toResolvedValue(
    (work: UnitOfWork, reader: BuiltInRuleReader, compiler: RuleCompiler, clock: Clock) => new PutToolRules(work, reader, compiler, clock),
    [TOKENS.UnitOfWork, TOKENS.BuiltInRuleReader, TOKENS.RuleCompiler, TOKENS.Clock],
  );
  c.bind(ToolRulesController).toResolvedValue(
    (list: ListToolRules, put: PutToolRules) => new ToolRulesController(list, put),
    [ListToolRules, PutToolRules],
  );
}

/** The mcp_servers policy, the same for the tool and REST: tool_rules name at most MCP_UPSTREAM_MAX_TOOLS tools. */
function serverPolicy({ mcp, env }: Config, compiler: RuleCompiler): ResourcePolicy {
  return mcpServerPolicy(mcp.maxServersPerUser, env === 'production', { compiler, maxTools: mcp.upstreamMaxTools });
}

/** Pinned upstream tool definitions: a server holds at most as many pins as one listing may name (MCP_UPSTREAM_MAX_TOOLS). */
function bindToolPins(c: Container): void {
  c.bind(ToolPins).toResolvedValue(
    (ds: DataSource, work: UnitOfWork, clock: Clock, config: Config) =>
      new ToolPins(new TypeormToolPinStore(ds.manager), work, new Sha256ContentDigest(), clock, config.mcp.upstreamMaxTools),
    [TOKENS.DataSource, TOKENS.UnitOfWork, TOKENS.Clock, TOKENS.Config],
  );
}

/** /mcp/servers/<name>: one upstream server's view, over the same directories as /mcp. */
function bindMcpServerViews(c: Container): void {
  c.bind(FindServerView).toResolvedValue((store: ResourceStore) => new FindServerView(store), [TOKENS.ResourceStore]);
}

/** One entry per upstream server version, a few booleans each: the count alone bounds the heap. */
const CAPABILITY_CACHE_ENTRIES = 10_000;

/** What /mcp/servers/<name> declares at initialize: the upstream's capabilities, kept as long as its lists (MCP_UPSTREAM_LIST_TTL_SECONDS). */
function bindMcpCapabilities(c: Container): void {
  c.bind(FindEndpointCapabilities).toResolvedValue(
    (listings: UpstreamListings, { mcp }: Config) =>
      new FindEndpointCapabilities(
        listings,
        new LruLoadingCache<EndpointCapabilities>({ maxEntries: CAPABILITY_CACHE_ENTRIES, ttlMs: mcp.upstreamListTtlSeconds * 1000 }),
      ),
    [UpstreamListings, TOKENS.Config],
  );
}

/**
 * The /mcp answers given without an SDK server: a lone tools/call of a
 * built-in tool (2025), and on 2026-07-28 a lone tools/list, built-in call
 * or plain call of an upstream tool.
 */
function bindMcpFastPaths(c: Container): void {
  c.bind(ToolsCallFastPath).toResolvedValue(
    (call: CallTool, recorder: ToolCallRecorder, log: (error: unknown) => void) =>
      new ToolsCallFastPath(new ToolCallRunner(call, recorder, log)),
    [CallTool, ToolCallRecorder, TOKENS.McpLog],
  );
  c.bind(ModernToolsListFastPath).toResolvedValue((list: ListTools) => new ModernToolsListFastPath(list), [ListTools]);
  c.bind(ModernToolsCallFastPath).toResolvedValue(
    (call: CallTool, recorder: ToolCallRecorder, log: (error: unknown) => void) =>
      new ModernToolsCallFastPath(new ToolCallRunner(call, recorder, log)),
    [CallTool, ToolCallRecorder, TOKENS.McpLog],
  );
  c.bind(ModernUpstreamCallFastPath).toResolvedValue(
    (call: CallTool, recorder: ToolCallRecorder, log: (error: unknown) => void, states: SealedRequestState) =>
      new ModernUpstreamCallFastPath(new ToolCallRunner(call, recorder, log), new InputRequiredRounds(states)),
    [CallTool, ToolCallRecorder, TOKENS.McpLog, SealedRequestState],
  );
}
