import { randomBytes } from 'node:crypto';
import { Container } from 'inversify';
import { SessionBus } from '../../application/ports/session-bus.port';
import { ExternalTools } from '../../application/ports/external-tools.port';
import { ResourceStore } from '../../application/ports/resource-store.port';
import { ToolListCache, ToolListing, UpstreamMcp } from '../../application/ports/upstream-mcp.port';
import { AuthorizeToolCall } from '../../application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { CallTool } from '../../application/use-cases/gateway/tools/call-tool.use-case';
import { McpServerUseCases } from '../../application/use-cases/gateway/mcp-servers/mcp-server-use-cases';
import { mcpServerPolicy } from '../../application/use-cases/gateway/external/mcp-server-policy';
import { UpstreamToolDirectory } from '../../application/use-cases/gateway/external/upstream-tool-directory';
import { ToolPins } from '../../application/use-cases/gateway/external/tool-pins';
import { FilterTools } from '../../application/use-cases/gateway/filter-tools/filter-tools.use-case';
import { ListTools } from '../../application/use-cases/gateway/list-tools/list-tools.use-case';
import { ValidateKey } from '../../application/use-cases/validate-key/validate-key.use-case';
import { McpController } from '../../adapters/mcp/mcp.controller';
import { McpOAuth } from '../../adapters/mcp/oauth/mcp-oauth';
import { McpServerFactory } from '../../adapters/mcp/mcp-server.factory';
import { ModernHttp } from '../../adapters/mcp/modern/modern-http';
import { ModernToolsCallFastPath } from '../../adapters/mcp/modern/modern-tools-call-fast-path';
import { ModernUpstreamCallFastPath } from '../../adapters/mcp/modern/modern-upstream-call-fast-path';
import { ModernToolsListFastPath } from '../../adapters/mcp/modern/modern-tools-list-fast-path';
import { ListenCapabilities } from '../../adapters/mcp/modern/listen-capabilities';
import { ListenStreams } from '../../adapters/mcp/modern/listen-streams';
import { ModernServerFactory } from '../../adapters/mcp/modern/modern-server.factory';
import { ParkedCalls } from '../../adapters/mcp/modern/parked-calls';
import { SealedRequestState } from '../../adapters/mcp/modern/sealed-request-state';
import { AesGcmSecretBox } from '../../adapters/crypto/aes-gcm-secret-box';
import { SecretBox } from '../../application/ports/secret-box.port';
import { Clock } from '../../application/ports/clock.port';
import { UpstreamContentUseCases } from '../../adapters/mcp/upstream-content-handlers';
import { ToolCallRecorder } from '../../adapters/mcp/tool-call-recorder';
import { ToolsCallFastPath } from '../../adapters/mcp/tools-call-fast-path';
import { ToolsListFastPath } from '../../adapters/mcp/tools-list-fast-path';
import { SdkUpstreamMcp } from '../../adapters/mcp/upstream/sdk-upstream-mcp';
import { LruLoadingCache } from '../../adapters/mcp/upstream/lru-loading-cache';
import { UpstreamProfile } from '../../adapters/mcp/upstream/upstream-profile';
import { UpstreamAddressGuard } from '../../adapters/mcp/upstream/upstream-address-guard';
import { Logger } from 'pino';
import { UsageGate } from '../../adapters/edge/usage-gate';
import { McpSessionEdge } from '../../adapters/mcp/sessions/mcp-session-edge';
import { UpstreamSessionStore } from '../../application/ports/upstream-session-store.port';
import { SessionRelays } from '../../adapters/mcp/relay/session-relays';
import { FindServerView } from '../../application/use-cases/gateway/upstream-view/find-server-view.use-case';
import { FindEndpointCapabilities } from '../../application/use-cases/gateway/upstream-view/find-endpoint-capabilities.use-case';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/**
 * Bounds of the upstream tool-list cache. A listing may reach MCP_UPSTREAM_MAX_BYTES
 * per page, so its JSON size bounds the heap, not the count: 16 M characters of
 * tool JSON took 26 MB of heap once parsed (measured), well within the 192 MB
 * the service runs with.
 */
const UPSTREAM_LIST_CACHE = { maxEntries: 10_000, maxChars: 16 * 1024 * 1024 };
/** Upstream profiles (revision, capabilities, discover result), one per server version: bounded and kept as capabilities are (mcp-capabilities.bindings.ts). */
const PROFILE_CACHE_ENTRIES = 10_000;

type Log = (error: unknown) => void;

/** The MCP gateway: tool use-cases, the upstream client behind them, the /mcp edge (the resource store is bound with the hot path). */
export function bindMcp(c: Container): void {
  c.bind<Log>(TOKENS.McpLog).toResolvedValue(
    (logger: Logger) => (error) => (typeof error === 'string' ? logger.warn(error) : logger.error({ err: error }, 'MCP request failed')),
    [TOKENS.Logger],
  );
  // By its class too: the same client (one connection pool) serves UpstreamContent (mcp-content.bindings.ts).
  c.bind(SdkUpstreamMcp).toResolvedValue(
    ({ mcp }: Config, store: UpstreamSessionStore | undefined) => new SdkUpstreamMcp(new UpstreamAddressGuard(mcp.upstreamAllowlist), {
      timeoutMs: mcp.upstreamTimeoutMs, maxBytes: mcp.upstreamMaxBytes, maxPages: mcp.upstreamMaxPages, maxTools: mcp.upstreamMaxTools,
      relayedTimeoutMs: mcp.relayCallTimeoutMs,
    }, store, new LruLoadingCache<UpstreamProfile>({ maxEntries: PROFILE_CACHE_ENTRIES, ttlMs: mcp.upstreamListTtlSeconds * 1000 })),
    [TOKENS.Config, { serviceIdentifier: TOKENS.UpstreamSessionStore, optional: true }],
  );
  c.bind<UpstreamMcp>(TOKENS.UpstreamMcp).toService(SdkUpstreamMcp);
  c.bind<ToolListCache>(TOKENS.ToolListCache).toResolvedValue(
    ({ mcp }: Config) => new LruLoadingCache<ToolListing>({ ...UPSTREAM_LIST_CACHE, ttlMs: mcp.upstreamListTtlSeconds * 1000 }),
    [TOKENS.Config],
  );
  c.bind<ExternalTools>(TOKENS.ExternalTools).toResolvedValue(
    (store: ResourceStore, upstream: UpstreamMcp, lists: ToolListCache, log: Log, pins: ToolPins) => new UpstreamToolDirectory(store, upstream, lists, log, pins),
    [TOKENS.ResourceStore, TOKENS.UpstreamMcp, TOKENS.ToolListCache, TOKENS.McpLog, ToolPins],
  );
  c.bind(AuthorizeToolCall).toResolvedValue((external: ExternalTools) => new AuthorizeToolCall(external), [TOKENS.ExternalTools]);
  c.bind(ListTools).toResolvedValue(
    (filter: FilterTools, external: ExternalTools) => new ListTools(filter, external),
    [FilterTools, TOKENS.ExternalTools],
  );
  c.bind(CallTool).toResolvedValue(
    (store: ResourceStore, external: ExternalTools, config: Config, servers: McpServerUseCases) =>
      new CallTool(store, { mcp_servers: mcpServerPolicy(config.mcp.maxServersPerUser) }, external, servers),
    [TOKENS.ResourceStore, TOKENS.ExternalTools, TOKENS.Config, TOKENS.McpServerUseCases],
  );
  c.bind(McpServerFactory).toResolvedValue(
    (list: ListTools, call: CallTool, log: Log, recorder: ToolCallRecorder, content: UpstreamContentUseCases, relays: SessionRelays, capabilities: FindEndpointCapabilities) =>
      new McpServerFactory(list, call, log, recorder, content, relays, capabilities),
    [ListTools, CallTool, TOKENS.McpLog, ToolCallRecorder, TOKENS.UpstreamContentUseCases, SessionRelays, FindEndpointCapabilities],
  );
  c.bind(SealedRequestState).toResolvedValue(
    // Internal jobs may run without SECRETS_KEY; the service always has one (withSecretsKey), so every replica opens every state.
    (box: SecretBox | undefined, clock: Clock) => new SealedRequestState(box ?? new AesGcmSecretBox(randomBytes(32)), clock),
    [{ serviceIdentifier: TOKENS.SecretBox, optional: true }, TOKENS.Clock],
  );
  c.bind(ParkedCalls).toResolvedValue(
    (bus: SessionBus, { mcp }: Config) => new ParkedCalls(bus, {
      callTimeoutMs: mcp.relayCallTimeoutMs, maxPerReplica: mcp.maxParkedCallsPerReplica, maxPerKey: mcp.maxParkedCallsPerKey,
    }),
    [TOKENS.SessionBus, TOKENS.Config],
  );
  c.bind(ModernHttp).toResolvedValue(
    (list: ListTools, call: CallTool, log: Log, recorder: ToolCallRecorder, capabilities: ListenCapabilities, content: UpstreamContentUseCases, states: SealedRequestState,
      parked: ParkedCalls, toolsList: ModernToolsListFastPath, toolsCall: ModernToolsCallFastPath, listens: ListenStreams, upstreamCall: ModernUpstreamCallFastPath) =>
      new ModernHttp(new ModernServerFactory(list, call, log, recorder, capabilities, content, states, parked), [toolsList, toolsCall, upstreamCall], listens),
    [ListTools, CallTool, TOKENS.McpLog, ToolCallRecorder, ListenCapabilities, TOKENS.UpstreamContentUseCases, SealedRequestState, ParkedCalls,
      ModernToolsListFastPath, ModernToolsCallFastPath, ListenStreams, ModernUpstreamCallFastPath],
  );
  c.bind(McpController).toResolvedValue(
    (validate: ValidateKey, authorize: AuthorizeToolCall, servers: McpServerFactory, config: Config, list: ListTools, recorder: ToolCallRecorder,
      calls: ToolsCallFastPath, usage: UsageGate, sessions: McpSessionEdge, views: FindServerView, modern: ModernHttp, oauth: McpOAuth | undefined) =>
      new McpController(validate, authorize, servers, config.mcp, new ToolsListFastPath(list), recorder, calls, usage, sessions, views, modern, oauth),
    [ValidateKey, AuthorizeToolCall, McpServerFactory, TOKENS.Config, ListTools, ToolCallRecorder, ToolsCallFastPath, UsageGate, McpSessionEdge, FindServerView, ModernHttp,
      { serviceIdentifier: McpOAuth, optional: true }],
  );
}
