import { Container } from 'inversify';
import { randomUUID } from 'node:crypto';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ApiKeyRepository } from '../../application/ports/api-key-repository.port';
import { Clock } from '../../application/ports/clock.port';
import { KeyHasher } from '../../application/ports/key-hasher.port';
import { McpSessionRepository } from '../../application/ports/mcp-session-repository.port';
import { ResourceStore } from '../../application/ports/resource-store.port';
import { ResourceSubscriptionStore } from '../../application/ports/resource-subscription-store.port';
import { SessionBus } from '../../application/ports/session-bus.port';
import { UpstreamMcp, ToolListCache } from '../../application/ports/upstream-mcp.port';
import { UpstreamSessionStore } from '../../application/ports/upstream-session-store.port';
import { UpstreamListings } from '../../application/use-cases/gateway/external/upstream-listings';
import { reachableAsRegistered, SERVERS, serversIn, toServer } from '../../application/use-cases/gateway/external/upstream-servers';
import { toolListKey } from '../../application/use-cases/gateway/external/upstream-tool-directory';
import { ListTools } from '../../application/use-cases/gateway/list-tools/list-tools.use-case';
import { AnnounceToolChanges } from '../../application/use-cases/gateway/mcp-sessions/announce-tool-changes.use-case';
import { CloseUpstreamSessions } from '../../application/use-cases/gateway/mcp-sessions/close-upstream-sessions.use-case';
import { EndMcpSession } from '../../application/use-cases/gateway/mcp-sessions/end-mcp-session.use-case';
import { OpenMcpSession } from '../../application/use-cases/gateway/mcp-sessions/open-mcp-session.use-case';
import { RelayUpstreamNotification } from '../../application/use-cases/gateway/mcp-sessions/relay-upstream-notification.use-case';
import { ResumeMcpSession } from '../../application/use-cases/gateway/mcp-sessions/resume-mcp-session.use-case';
import { ToolsDigest } from '../../application/use-cases/gateway/mcp-sessions/tools-digest';
import { RandomSessionToken } from '../../adapters/crypto/random-session-token';
import { ListenCapabilities } from '../../adapters/mcp/modern/listen-capabilities';
import { ListenStreams } from '../../adapters/mcp/modern/listen-streams';
import { UpstreamListener } from '../../adapters/mcp/modern/upstream-listener';
import { ListeningSubscriptions } from '../../adapters/mcp/notifications/listening-subscriptions';
import { modernListens } from '../../adapters/mcp/notifications/modern-upstream-listens';
import { UpstreamNotificationStreams } from '../../adapters/mcp/notifications/upstream-notification-streams';
import { SessionRelays } from '../../adapters/mcp/relay/session-relays';
import { SessionToolCallFastPath } from '../../adapters/mcp/sessions/session-tool-call-fast-path';
import { ToolCallRunner } from '../../adapters/mcp/tool-call-runner';
import { ToolCallRecorder } from '../../adapters/mcp/tool-call-recorder';
import { CallTool } from '../../application/use-cases/gateway/tools/call-tool.use-case';
import { McpSessionEdge } from '../../adapters/mcp/sessions/mcp-session-edge';
import { longestCallMs, PostStreams, POST_STREAM_RETRY_MS } from '../../adapters/mcp/sessions/post-streams';
import { SessionStreams } from '../../adapters/mcp/sessions/session-streams';
import { StreamPlaces } from '../../adapters/mcp/sessions/stream-places';
import { pinnedAgent } from '../../adapters/mcp/upstream/pinned-agent';
import { SdkUpstreamMcp } from '../../adapters/mcp/upstream/sdk-upstream-mcp';
import { UpstreamAddressGuard } from '../../adapters/mcp/upstream/upstream-address-guard';
import { NotifiedCache } from '../../adapters/persistence/hot-path/change-listener';
import { CachedUpstreamSessionStore } from '../../adapters/persistence/mcp-sessions/cached-upstream-session-store';
import { PostgresMcpSessionRepository } from '../../adapters/persistence/mcp-sessions/postgres-mcp-session.repository';
import { CachedMcpSessionRepository } from '../../adapters/persistence/mcp-sessions/cached-mcp-session-repository';
import {
  LISTENING_CHANNEL,
  PostgresResourceSubscriptions,
  SUBSCRIPTIONS_CHANNEL,
} from '../../adapters/persistence/mcp-sessions/postgres-resource-subscriptions';
import { PostgresSessionBus, SESSION_ENDED_CHANNEL } from '../../adapters/persistence/mcp-sessions/postgres-session-bus';
import { POST_STREAM_WANTED_CHANNEL, PostgresSessionEvents } from '../../adapters/persistence/mcp-sessions/postgres-session-events';
import { PostgresUpstreamSessionStore } from '../../adapters/persistence/mcp-sessions/postgres-upstream-session-store';
import { SessionPurge } from '../../adapters/persistence/mcp-sessions/session-purge';
import { ToolChangeWatcher } from '../../adapters/persistence/mcp-sessions/tool-change-watcher';
import { SessionIdlePolicy } from '../../domain/mcp-session';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/**
 * The gateway's sessions: MCP client sessions (store, bus, purge, streams,
 * the session edge), their upstream sessions and relays, POST streams,
 * resource subscriptions with upstream notifications, and 2026-07-28
 * subscriptions/listen. The change listener (keys.module.ts) and the
 * Lifecycle (container.ts) start and stop what runs in the background.
 */
export function bindGatewaySessions(c: Container): void {
  bindMcpSessions(c);
  bindMcpRelay(c);
  bindMcpPostStreams(c);
  bindMcpSubscriptions(c);
  bindMcpListen(c);
}

/** Events kept per session for Last-Event-ID, and for how long. */
export const SESSION_EVENTS = { maxEventsPerSession: 100, ttlMs: 15 * 60 * 1000 };

type Log = (message: string, error?: unknown) => void;

/**
 * MCP sessions: the shared session table, the session bus and event log over
 * PostgreSQL (heard through the one change listener), the GET streams of
 * this replica, the purge, and the /mcp edge's part. The container's
 * Lifecycle starts the purge and closes the streams.
 */
function bindMcpSessions(c: Container): void {
  const log =
    (logger: Logger): Log =>
    (message, error) =>
      logger.warn({ err: error }, message);
  c.bind(SessionIdlePolicy).toResolvedValue(({ mcp }: Config) => new SessionIdlePolicy(mcp.sessionIdleSeconds), [TOKENS.Config]);
  c.bind(CachedMcpSessionRepository).toResolvedValue(
    (ds: DataSource, idle: SessionIdlePolicy, clock: Clock) =>
      new CachedMcpSessionRepository(new PostgresMcpSessionRepository(ds), idle.touchMs, () => clock.now().getTime()),
    [TOKENS.DataSource, SessionIdlePolicy, TOKENS.Clock],
  );
  c.bind<McpSessionRepository>(TOKENS.McpSessionRepository).toService(CachedMcpSessionRepository);
  c.bind(PostgresSessionEvents).toResolvedValue((ds: DataSource) => new PostgresSessionEvents(ds, SESSION_EVENTS), [TOKENS.DataSource]);
  c.bind(PostgresSessionBus).toResolvedValue(
    (ds: DataSource, events: PostgresSessionEvents, logger: Logger) => new PostgresSessionBus(ds, events, log(logger)),
    [TOKENS.DataSource, PostgresSessionEvents, TOKENS.Logger],
  );
  c.bind<SessionBus>(TOKENS.SessionBus).toService(PostgresSessionBus);
  c.bind(ToolsDigest).toResolvedValue((list: ListTools, hasher: KeyHasher) => new ToolsDigest(list, hasher), [ListTools, TOKENS.KeyHasher]);
  c.bind(AnnounceToolChanges).toResolvedValue(
    (sessions: McpSessionRepository, digest: ToolsDigest, bus: SessionBus, clock: Clock, idle: SessionIdlePolicy) =>
      new AnnounceToolChanges(sessions, digest, bus, clock, idle),
    [TOKENS.McpSessionRepository, ToolsDigest, TOKENS.SessionBus, TOKENS.Clock, SessionIdlePolicy],
  );
  // Built lazily at the first change heard, so that an internal job, which never listens, builds no upstream client for it.
  // 2026 listen streams on this replica hear the same changes (modern/listen-streams.ts).
  c.bind(ToolChangeWatcher).toResolvedValue(
    (logger: Logger) => {
      let announce: AnnounceToolChanges | undefined;
      let listens: ListenStreams | undefined;
      return new ToolChangeWatcher(
        (change) =>
          Promise.all([(announce ??= c.get(AnnounceToolChanges)).execute(change), (listens ??= c.get(ListenStreams)).changed(change)]),
        log(logger),
      );
    },
    [TOKENS.Logger],
  );
  c.bind<NotifiedCache[]>(TOKENS.SessionChannels).toResolvedValue(
    (bus: PostgresSessionBus, watcher: ToolChangeWatcher, posts: PostStreams, sessions: CachedMcpSessionRepository) => [
      ...bus.channels(),
      ...watcher.channels(),
      postStreamWanted(posts),
      ...sessions.channels,
    ],
    [PostgresSessionBus, ToolChangeWatcher, PostStreams, CachedMcpSessionRepository],
  );
  c.bind(SessionPurge).toResolvedValue(
    (ds: DataSource, clock: Clock, idle: SessionIdlePolicy, logger: Logger) =>
      new SessionPurge(ds, { idleCutoff: () => idle.idleCutoff(clock.now()), eventTtlMs: SESSION_EVENTS.ttlMs, log: log(logger) }),
    [TOKENS.DataSource, TOKENS.Clock, SessionIdlePolicy, TOKENS.Logger],
  );
  c.bind(ResumeMcpSession).toResolvedValue(
    (sessions: McpSessionRepository, hasher: KeyHasher, clock: Clock, idle: SessionIdlePolicy) =>
      new ResumeMcpSession(sessions, hasher, clock, idle),
    [TOKENS.McpSessionRepository, TOKENS.KeyHasher, TOKENS.Clock, SessionIdlePolicy],
  );
  c.bind(OpenMcpSession).toResolvedValue(
    (sessions: McpSessionRepository, hasher: KeyHasher, digest: ToolsDigest, clock: Clock, idle: SessionIdlePolicy, { mcp }: Config) =>
      new OpenMcpSession(sessions, new RandomSessionToken(), hasher, digest, clock, { idle, maxPerKey: mcp.maxSessionsPerKey }),
    [TOKENS.McpSessionRepository, TOKENS.KeyHasher, ToolsDigest, TOKENS.Clock, SessionIdlePolicy, TOKENS.Config],
  );
  c.bind(EndMcpSession).toResolvedValue(
    (sessions: McpSessionRepository, clock: Clock) => new EndMcpSession(sessions, clock),
    [TOKENS.McpSessionRepository, TOKENS.Clock],
  );
  c.bind(SessionStreams).toResolvedValue(
    (events: PostgresSessionEvents, bus: PostgresSessionBus, config: Config, logger: Logger, places: StreamPlaces) =>
      new SessionStreams(
        events,
        bus,
        {
          maxStreams: config.mcp.maxStreamsPerReplica,
          maxStreamsPerKey: config.mcp.maxStreamsPerKey,
          replica: randomUUID(),
          postStreamMs: longestCallMs(config.mcp),
        },
        log(logger),
        places,
      ),
    [PostgresSessionEvents, PostgresSessionBus, TOKENS.Config, TOKENS.Logger, StreamPlaces],
  );
  c.bind(McpSessionEdge).toResolvedValue(
    (
      resume: ResumeMcpSession,
      open: OpenMcpSession,
      end: EndMcpSession,
      bus: SessionBus,
      streams: SessionStreams,
      posts: PostStreams,
      upstream: UpstreamNotificationStreams,
      logger: Logger,
    ) =>
      new McpSessionEdge({
        resume,
        openSession: open,
        endSession: end,
        bus,
        streams,
        posts,
        upstreamStreams: upstream,
        log: (error) => logger.error({ err: error }, 'MCP session request failed'),
      }),
    [
      ResumeMcpSession,
      OpenMcpSession,
      EndMcpSession,
      TOKENS.SessionBus,
      SessionStreams,
      PostStreams,
      UpstreamNotificationStreams,
      TOKENS.Logger,
    ],
  );
}

/** Server-to-client requests awaiting answers per session and replica, and messages relayed per call. */
export const RELAY_BOUNDS = { maxPendingPerSession: 16, maxMessagesPerCall: 1000 };

/**
 * keygate's sessions with upstreams per client session, and the relay during
 * a tools/call: the store, the relays the SDK server of a session request
 * uses, and the upstream sessions closed when their client session ends
 * (heard through the one change listener).
 */
function bindMcpRelay(c: Container): void {
  c.bind(CachedUpstreamSessionStore).toResolvedValue(
    (ds: DataSource) => new CachedUpstreamSessionStore(new PostgresUpstreamSessionStore(ds)),
    [TOKENS.DataSource],
  );
  c.bind<UpstreamSessionStore>(TOKENS.UpstreamSessionStore).toService(CachedUpstreamSessionStore);
  c.bind(SessionRelays).toResolvedValue(
    (bus: SessionBus, store: UpstreamSessionStore, { mcp }: Config) =>
      new SessionRelays(bus, store, {
        ...RELAY_BOUNDS,
        maxBytesPerCall: mcp.upstreamMaxBytes,
        answerTimeoutMs: mcp.relayAnswerTimeoutMs,
        callTimeoutMs: mcp.relayCallTimeoutMs,
      }),
    [TOKENS.SessionBus, TOKENS.UpstreamSessionStore, TOKENS.Config],
  );
  c.bind(CloseUpstreamSessions).toResolvedValue(
    (store: UpstreamSessionStore, records: ResourceStore, upstream: UpstreamMcp) => new CloseUpstreamSessions(store, records, upstream),
    [TOKENS.UpstreamSessionStore, TOKENS.ResourceStore, TOKENS.UpstreamMcp],
  );
  // Built at the first session end heard, so that a job, which never listens, builds no upstream client for it.
  c.bind<NotifiedCache[]>(TOKENS.RelayChannels).toResolvedValue(
    (logger: Logger, views: CachedUpstreamSessionStore) => {
      let close: CloseUpstreamSessions | undefined;
      const ended = (id: string) => {
        // `*` (a TRUNCATE) names no session; their rows go with them.
        if (id === '*') return;
        (close ??= c.get(CloseUpstreamSessions))
          .execute({ clientSessionId: id })
          .catch((error: unknown) => logger.warn({ err: error }, 'could not close the upstream sessions of an ended MCP session'));
      };
      const ignore = () => undefined;
      return [...views.channels, { channel: SESSION_ENDED_CHANNEL, evict: ended, enable: ignore, disable: ignore }];
    },
    [TOKENS.Logger, CachedUpstreamSessionStore],
  );
}

/** Resumable SSE answers to POSTs in a session (SEP-1699): their events go into the session's log when a client may come back for them. */
function bindMcpPostStreams(c: Container): void {
  c.bind(SessionToolCallFastPath).toResolvedValue(
    (call: CallTool, recorder: ToolCallRecorder, log: (error: unknown) => void, relays: SessionRelays, posts: PostStreams) =>
      new SessionToolCallFastPath(new ToolCallRunner(call, recorder, log), relays, posts, log),
    [CallTool, ToolCallRecorder, TOKENS.McpLog, SessionRelays, PostStreams],
  );
  c.bind(PostStreams).toResolvedValue(
    (events: PostgresSessionEvents, config: Config, logger: Logger) =>
      new PostStreams(events, { retryMs: POST_STREAM_RETRY_MS, maxCallMs: longestCallMs(config.mcp) }, (message, error) =>
        logger.warn({ err: error }, message),
      ),
    [PostgresSessionEvents, TOKENS.Config, TOKENS.Logger],
  );
}

/**
 * A resumption on another replica asks for a POST stream this one may hold
 * in memory (payload `<session id> <stream>`). While the listener was away
 * such asks were lost, so on its return every stream held is written out.
 */
function postStreamWanted(posts: PostStreams): NotifiedCache {
  const ignore = () => undefined;
  return {
    channel: POST_STREAM_WANTED_CHANNEL,
    evict: (payload) => {
      const [sessionId, stream] = payload.split(' ');
      if (sessionId && stream) posts.wanted(sessionId, Number(stream));
    },
    enable: () => posts.spillAll(),
    disable: ignore,
  };
}

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
function bindMcpSubscriptions(c: Container): void {
  c.bind(PostgresResourceSubscriptions).toResolvedValue((ds: DataSource) => new PostgresResourceSubscriptions(ds), [TOKENS.DataSource]);
  // A subscribe waits for the upstream's stream to open for at most half the upstream timeout, which bounds the subscribe as a whole.
  c.bind(ListeningSubscriptions).toResolvedValue(
    (records: PostgresResourceSubscriptions, streams: UpstreamNotificationStreams, { mcp }: Config) =>
      new ListeningSubscriptions(records, streams, mcp.upstreamTimeoutMs / 2),
    [PostgresResourceSubscriptions, UpstreamNotificationStreams, TOKENS.Config],
  );
  c.bind<ResourceSubscriptionStore>(TOKENS.ResourceSubscriptionStore).toService(ListeningSubscriptions);
  c.bind(RelayUpstreamNotification).toResolvedValue(
    (
      subscriptions: ResourceSubscriptionStore,
      sessions: McpSessionRepository,
      records: ResourceStore,
      bus: SessionBus,
      toolLists: ToolListCache,
      listings: UpstreamListings,
      announce: AnnounceToolChanges,
      clock: Clock,
      idle: SessionIdlePolicy,
    ) => new RelayUpstreamNotification({ subscriptions, sessions, records, bus, toolLists, listings, announce, clock, idle }),
    [
      TOKENS.ResourceSubscriptionStore,
      TOKENS.McpSessionRepository,
      TOKENS.ResourceStore,
      TOKENS.SessionBus,
      TOKENS.ToolListCache,
      UpstreamListings,
      AnnounceToolChanges,
      TOKENS.Clock,
      SessionIdlePolicy,
    ],
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
          // A record whose header values did not decrypt is as good as gone: no stream is opened without them,
          // nor to a server with per-user credentials, which only its users' own calls reach.
          return record === null || !reachableAsRegistered(record) ? null : toServer(record);
        },
        relay: (input: Parameters<RelayUpstreamNotification['execute']>[0]) => (relay ??= c.get(RelayUpstreamNotification)).execute(input),
        acknowledge: (sessionId: string, serverId: string) => subscriptions.listening(sessionId, serverId),
        // 2026-07-28 upstreams have no held session: the stream listens to them (subscriptions/listen) instead.
        listened: modernListens(
          {
            servers: (userId, view) => serversIn(records, userId, view),
            subscribed: (sessionId) => subscriptions.subscribedUris(sessionId),
            profileOf: (server) => upstream.profileOf(server),
          },
          agent,
          { timeoutMs: mcp.upstreamTimeoutMs, maxBytes: mcp.upstreamMaxBytes },
        ),
      };
      return new UpstreamNotificationStreams(
        sources,
        agent,
        {
          ...UPSTREAM_NOTIFICATIONS,
          maxStreams: mcp.maxUpstreamStreamsPerReplica,
          connectTimeoutMs: mcp.upstreamTimeoutMs,
          maxBytes: mcp.upstreamMaxBytes,
        },
        (message, error) => logger.warn({ err: error }, message),
      );
    },
    [PostgresResourceSubscriptions, TOKENS.ResourceStore, TOKENS.Config, TOKENS.Logger, SdkUpstreamMcp],
  );
  c.bind<NotifiedCache[]>(TOKENS.SubscriptionChannels).toResolvedValue(
    (streams: UpstreamNotificationStreams, listening: ListeningSubscriptions) => {
      const ignore = () => undefined;
      return [
        { channel: SUBSCRIPTIONS_CHANNEL, evict: (id) => streams.resync(id), enable: ignore, disable: ignore },
        { channel: LISTENING_CHANNEL, evict: (payload) => listening.heard(payload), enable: ignore, disable: ignore },
      ];
    },
    [UpstreamNotificationStreams, ListeningSubscriptions],
  );
}

const TOOLS_LIST_CHANGED = 'notifications/tools/list_changed';

/**
 * subscriptions/listen for 2026-07-28 clients: the stream places this
 * replica shares between them and 2025 GET streams, what a 2026 endpoint
 * declares (and so honours), and the streams with their upstream contacts.
 * The tool-change watcher (bindMcpSessions) tells them what it hears.
 */
function bindMcpListen(c: Container): void {
  c.bind(StreamPlaces).toResolvedValue(
    ({ mcp }: Config) => new StreamPlaces({ perReplica: mcp.maxStreamsPerReplica, perKey: mcp.maxStreamsPerKey }),
    [TOKENS.Config],
  );
  c.bind(ListenCapabilities).toResolvedValue(
    (listings: UpstreamListings, upstream: SdkUpstreamMcp) => new ListenCapabilities(listings, (server) => upstream.profileOf(server)),
    [UpstreamListings, SdkUpstreamMcp],
  );
  c.bind(ListenStreams).toResolvedValue(
    (
      places: StreamPlaces,
      capabilities: ListenCapabilities,
      digest: ToolsDigest,
      list: ListTools,
      keys: ApiKeyRepository,
      clock: Clock,
      store: ResourceStore,
      listings: UpstreamListings,
      toolLists: ToolListCache,
      upstream: SdkUpstreamMcp,
      { mcp }: Config,
      logger: Logger,
    ) => {
      const log = (message: string, error?: unknown) => logger.warn({ err: error }, message);
      // Built at the first upstream tools change, so that a replica that never hears one builds no session machinery for it.
      let announce: AnnounceToolChanges | undefined;
      const sources = {
        capabilities: (input: Parameters<ListenCapabilities['execute']>[0]) => capabilities.execute(input),
        toolsDigest: (userId: string, scopes: Parameters<ToolsDigest['of']>[1], view: Parameters<ToolsDigest['of']>[2]) =>
          digest.of(userId, scopes, view),
        seesTools: async (userId: string, scopes: Parameters<ToolsDigest['of']>[1], view: NonNullable<Parameters<ToolsDigest['of']>[2]>) =>
          (await list.execute({ userId, scopes, view })).length > 0,
        scopesOf: async (keyId: string) => {
          const key = await keys.findById(keyId);
          return key !== null && key.isUsableAt(clock.now()) ? key.scopes : null;
        },
        servers: (userId: string, view: Parameters<typeof serversIn>[2]) => serversIn(store, userId, view),
        resourceAt: (userId: string, view: Parameters<UpstreamListings['resourceAt']>[1], uri: string) =>
          listings.resourceAt(userId, view, uri),
        upstreamChanged: async (record: Parameters<UpstreamListings['forget']>[0], method: string) => {
          if (method !== TOOLS_LIST_CHANGED) return listings.forget(record);
          toolLists.forget?.(toolListKey(record));
          // 2025 sessions of the owner whose visible tools moved are told too, as their own upstream streams would tell them.
          await (announce ??= c.get(AnnounceToolChanges)).execute({ userId: record.ownerId });
        },
      };
      const listener = new UpstreamListener(
        (server) => upstream.profileOf(server),
        pinnedAgent(new UpstreamAddressGuard(mcp.upstreamAllowlist), mcp.upstreamTimeoutMs),
        { timeoutMs: mcp.upstreamTimeoutMs, maxBytes: mcp.upstreamMaxBytes },
        log,
      );
      return new ListenStreams(
        places,
        sources,
        listener,
        { maxUris: mcp.maxSubscriptionsPerSession, maxUpstreams: mcp.maxUpstreamStreamsPerReplica },
        log,
      );
    },
    [
      StreamPlaces,
      ListenCapabilities,
      ToolsDigest,
      ListTools,
      TOKENS.ApiKeyRepository,
      TOKENS.Clock,
      TOKENS.ResourceStore,
      UpstreamListings,
      TOKENS.ToolListCache,
      SdkUpstreamMcp,
      TOKENS.Config,
      TOKENS.Logger,
    ],
  );
}
