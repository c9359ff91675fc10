import { Container } from 'inversify';
import { Logger } from 'pino';
import { ApiKeyRepository } from '../../application/ports/api-key-repository.port';
import { Clock } from '../../application/ports/clock.port';
import { ResourceStore } from '../../application/ports/resource-store.port';
import { ToolListCache } from '../../application/ports/upstream-mcp.port';
import { AnnounceToolChanges } from '../../application/use-cases/gateway/mcp-sessions/announce-tool-changes.use-case';
import { ToolsDigest } from '../../application/use-cases/gateway/mcp-sessions/tools-digest';
import { ListTools } from '../../application/use-cases/gateway/list-tools/list-tools.use-case';
import { UpstreamListings } from '../../application/use-cases/gateway/external/upstream-listings';
import { serversIn } from '../../application/use-cases/gateway/external/upstream-servers';
import { toolListKey } from '../../application/use-cases/gateway/external/upstream-tool-directory';
import { ListenCapabilities } from '../../adapters/mcp/modern/listen-capabilities';
import { ListenStreams } from '../../adapters/mcp/modern/listen-streams';
import { UpstreamListener } from '../../adapters/mcp/modern/upstream-listener';
import { StreamPlaces } from '../../adapters/mcp/sessions/stream-places';
import { pinnedAgent } from '../../adapters/mcp/upstream/pinned-agent';
import { SdkUpstreamMcp } from '../../adapters/mcp/upstream/sdk-upstream-mcp';
import { UpstreamAddressGuard } from '../../adapters/mcp/upstream/upstream-address-guard';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

const TOOLS_LIST_CHANGED = 'notifications/tools/list_changed';

/**
 * subscriptions/listen for 2026-07-28 clients: the stream places this
 * replica shares between them and 2025 GET streams, what a 2026 endpoint
 * declares (and so honours), and the streams with their upstream contacts.
 * The tool-change watcher (mcp-sessions.bindings.ts) tells them what it hears.
 */
export function bindMcpListen(c: Container): void {
  c.bind(StreamPlaces).toResolvedValue(
    ({ mcp }: Config) => new StreamPlaces({ perReplica: mcp.maxStreamsPerReplica, perKey: mcp.maxStreamsPerKey }),
    [TOKENS.Config],
  );
  c.bind(ListenCapabilities).toResolvedValue(
    (listings: UpstreamListings, upstream: SdkUpstreamMcp) => new ListenCapabilities(listings, (server) => upstream.profileOf(server)),
    [UpstreamListings, SdkUpstreamMcp],
  );
  c.bind(ListenStreams).toResolvedValue(
    (places: StreamPlaces, capabilities: ListenCapabilities, digest: ToolsDigest, list: ListTools, keys: ApiKeyRepository, clock: Clock, store: ResourceStore,
      listings: UpstreamListings, toolLists: ToolListCache, upstream: SdkUpstreamMcp, { mcp }: Config, logger: Logger) => {
      const log = (message: string, error?: unknown) => logger.warn({ err: error }, message);
      // Built at the first upstream tools change, so that a replica that never hears one builds no session machinery for it.
      let announce: AnnounceToolChanges | undefined;
      const sources = {
        capabilities: (input: Parameters<ListenCapabilities['execute']>[0]) => capabilities.execute(input),
        toolsDigest: (userId: string, scopes: Parameters<ToolsDigest['of']>[1], view: Parameters<ToolsDigest['of']>[2]) => digest.of(userId, scopes, view),
        seesTools: async (userId: string, scopes: Parameters<ToolsDigest['of']>[1], view: NonNullable<Parameters<ToolsDigest['of']>[2]>) =>
          (await list.execute({ userId, scopes, view })).length > 0,
        scopesOf: async (keyId: string) => {
          const key = await keys.findById(keyId);
          return key !== null && key.isUsableAt(clock.now()) ? key.scopes : null;
        },
        servers: (userId: string, view: Parameters<typeof serversIn>[2]) => serversIn(store, userId, view),
        resourceAt: (userId: string, view: Parameters<UpstreamListings['resourceAt']>[1], uri: string) => listings.resourceAt(userId, view, uri),
        upstreamChanged: async (record: Parameters<UpstreamListings['forget']>[0], method: string) => {
          if (method !== TOOLS_LIST_CHANGED) return listings.forget(record);
          toolLists.forget?.(toolListKey(record));
          // 2025 sessions of the owner whose visible tools moved are told too, as their own upstream streams would tell them.
          await (announce ??= c.get(AnnounceToolChanges)).execute({ userId: record.ownerId });
        },
      };
      const listener = new UpstreamListener((server) => upstream.profileOf(server), pinnedAgent(new UpstreamAddressGuard(mcp.upstreamAllowlist), mcp.upstreamTimeoutMs),
        { timeoutMs: mcp.upstreamTimeoutMs, maxBytes: mcp.upstreamMaxBytes }, log);
      return new ListenStreams(places, sources, listener, { maxUris: mcp.maxSubscriptionsPerSession, maxUpstreams: mcp.maxUpstreamStreamsPerReplica }, log);
    },
    [StreamPlaces, ListenCapabilities, ToolsDigest, ListTools, TOKENS.ApiKeyRepository, TOKENS.Clock, TOKENS.ResourceStore, UpstreamListings, TOKENS.ToolListCache,
      SdkUpstreamMcp, TOKENS.Config, TOKENS.Logger],
  );
}
