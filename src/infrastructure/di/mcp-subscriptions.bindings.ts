import { Container } from 'inversify';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { Clock } from '../../application/ports/clock.port';
import { McpSessionRepository } from '../../application/ports/mcp-session-repository.port';
import { ResourceStore } from '../../application/ports/resource-store.port';
import { ResourceSubscriptionStore } from '../../application/ports/resource-subscription-store.port';
import { SessionBus } from '../../application/ports/session-bus.port';
import { ToolListCache } from '../../application/ports/upstream-mcp.port';
import { AnnounceToolChanges } from '../../application/use-cases/gateway/mcp-sessions/announce-tool-changes.use-case';
import { RelayUpstreamNotification } from '../../application/use-cases/gateway/mcp-sessions/relay-upstream-notification.use-case';
import { UpstreamListings } from '../../application/use-cases/gateway/external/upstream-listings';
import { SERVERS, serversIn, toServer } from '../../application/use-cases/gateway/external/upstream-servers';
import { SessionIdlePolicy } from '../../domain/mcp-session';
import { ListeningSubscriptions } from '../../adapters/mcp/notifications/listening-subscriptions';
import { UpstreamNotificationStreams } from '../../adapters/mcp/notifications/upstream-notification-streams';
import { modernListens } from '../../adapters/mcp/notifications/modern-upstream-listens';
import { SdkUpstreamMcp } from '../../adapters/mcp/upstream/sdk-upstream-mcp';
import { pinnedAgent } from '../../adapters/mcp/upstream/pinned-agent';
import { UpstreamAddressGuard } from '../../adapters/mcp/upstream/upstream-address-guard';
import { NotifiedCache } from '../../adapters/persistence/hot-path/change-listener';
import { LISTENING_CHANNEL, PostgresResourceSubscriptions, SUBSCRIPTIONS_CHANNEL } from '../../adapters/persistence/mcp-sessions/postgres-resource-subscriptions';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/**
 * Upstream messages relayed per second per client session, the burst allowed
 * (also the relays queued at once), and how often a held stream looks for
 * upstream sessions opened meanwhile.
 */
export const UPSTREAM_NOTIFICATIONS = { messagesPerSecond: 20, burst: 50, resyncMs: 15_000 };

/**
 * resources/subscribe and what upstreams send outside a call: the
 * subscriptions in PostgreSQL, the relay use-case, and the upstream streams
 * this replica holds for the client streams it holds (heard through the one
 * change listener when another replica adds a subscription, and answered
 * there once they listen, for the subscribe waiting on that replica).
 */
export function bindMcpSubscriptions(c: Container): void {
  c.bind(PostgresResourceSubscriptions).toResolvedValue((ds: DataSource) => new PostgresResourceSubscriptions(ds), [TOKENS.DataSource]);
  // A subscribe waits for the upstream's stream to open for at most half the upstream timeout, which bounds the subscribe as a whole.
  c.bind(ListeningSubscriptions).toResolvedValue(
    (records: PostgresResourceSubscriptions, streams: UpstreamNotificationStreams, { mcp }: Config) => new ListeningSubscriptions(records, streams, mcp.upstreamTimeoutMs / 2),
    [PostgresResourceSubscriptions, UpstreamNotificationStreams, TOKENS.Config],
  );
  c.bind<ResourceSubscriptionStore>(TOKENS.ResourceSubscriptionStore).toService(ListeningSubscriptions);
  c.bind(RelayUpstreamNotification).toResolvedValue(
    (subscriptions: ResourceSubscriptionStore, sessions: McpSessionRepository, records: ResourceStore, bus: SessionBus, toolLists: ToolListCache,
      listings: UpstreamListings, announce: AnnounceToolChanges, clock: Clock, idle: SessionIdlePolicy) =>
      new RelayUpstreamNotification({ subscriptions, sessions, records, bus, toolLists, listings, announce, clock, idle }),
    [TOKENS.ResourceSubscriptionStore, TOKENS.McpSessionRepository, TOKENS.ResourceStore, TOKENS.SessionBus, TOKENS.ToolListCache,
      UpstreamListings, AnnounceToolChanges, TOKENS.Clock, SessionIdlePolicy],
  );
  c.bind(UpstreamNotificationStreams).toResolvedValue(
    (subscriptions: PostgresResourceSubscriptions, records: ResourceStore, { mcp }: Config, logger: Logger, upstream: SdkUpstreamMcp) => {
      const agent = pinnedAgent(new UpstreamAddressGuard(mcp.upstreamAllowlist), mcp.upstreamTimeoutMs);
      // Built at the first message, so that a replica that never relays builds no upstream tool client for it.
      let relay: RelayUpstreamNotification | undefined;
      const sources = {
        held: (sessionId: string) => subscriptions.heldSessions(sessionId),
        server: async (userId: string, serverId: string) => {
          const record = await records.find(userId, SERVERS, serverId);
          // A record whose header values did not decrypt is as good as gone: no stream is opened without them.
          return record === null || record.unreadableSecrets ? null : toServer(record);
        },
        relay: (input: Parameters<RelayUpstreamNotification['execute']>[0]) => (relay ??= c.get(RelayUpstreamNotification)).execute(input),
        acknowledge: (sessionId: string, serverId: string) => subscriptions.listening(sessionId, serverId),
        // 2026-07-28 upstreams have no held session: the stream listens to them (subscriptions/listen) instead.
        listened: modernListens({
          servers: (userId, view) => serversIn(records, userId, view),
          subscribed: (sessionId) => subscriptions.subscribedUris(sessionId),
          profileOf: (server) => upstream.profileOf(server),
        }, agent, { timeoutMs: mcp.upstreamTimeoutMs, maxBytes: mcp.upstreamMaxBytes }),
      };
      return new UpstreamNotificationStreams(sources, agent, {
        ...UPSTREAM_NOTIFICATIONS, maxStreams: mcp.maxUpstreamStreamsPerReplica, connectTimeoutMs: mcp.upstreamTimeoutMs, maxBytes: mcp.upstreamMaxBytes,
      }, (message, error) => logger.warn({ err: error }, message));
    },
    [PostgresResourceSubscriptions, TOKENS.ResourceStore, TOKENS.Config, TOKENS.Logger, SdkUpstreamMcp],
  );
  c.bind<NotifiedCache[]>(TOKENS.SubscriptionChannels).toResolvedValue((streams: UpstreamNotificationStreams, listening: ListeningSubscriptions) => {
    const ignore = () => undefined;
    return [
      { channel: SUBSCRIPTIONS_CHANNEL, evict: (id) => streams.resync(id), enable: ignore, disable: ignore },
      { channel: LISTENING_CHANNEL, evict: (payload) => listening.heard(payload), enable: ignore, disable: ignore },
    ];
  }, [UpstreamNotificationStreams, ListeningSubscriptions]);
}
