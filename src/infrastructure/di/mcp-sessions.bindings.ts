import { randomUUID } from 'node:crypto';
import { Container } from 'inversify';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { Clock } from '../../application/ports/clock.port';
import { KeyHasher } from '../../application/ports/key-hasher.port';
import { McpSessionRepository } from '../../application/ports/mcp-session-repository.port';
import { SessionBus } from '../../application/ports/session-bus.port';
import { AnnounceToolChanges } from '../../application/use-cases/gateway/mcp-sessions/announce-tool-changes.use-case';
import { EndMcpSession } from '../../application/use-cases/gateway/mcp-sessions/end-mcp-session.use-case';
import { OpenMcpSession } from '../../application/use-cases/gateway/mcp-sessions/open-mcp-session.use-case';
import { ResumeMcpSession } from '../../application/use-cases/gateway/mcp-sessions/resume-mcp-session.use-case';
import { ToolsDigest } from '../../application/use-cases/gateway/mcp-sessions/tools-digest';
import { ListTools } from '../../application/use-cases/gateway/list-tools/list-tools.use-case';
import { SessionIdlePolicy } from '../../domain/mcp-session';
import { RandomSessionToken } from '../../adapters/crypto/random-session-token';
import { McpSessionEdge } from '../../adapters/mcp/sessions/mcp-session-edge';
import { longestCallMs, PostStreams } from '../../adapters/mcp/sessions/post-streams';
import { SessionStreams } from '../../adapters/mcp/sessions/session-streams';
import { StreamPlaces } from '../../adapters/mcp/sessions/stream-places';
import { ListenStreams } from '../../adapters/mcp/modern/listen-streams';
import { UpstreamNotificationStreams } from '../../adapters/mcp/notifications/upstream-notification-streams';
import { NotifiedCache } from '../../adapters/persistence/hot-path/change-listener';
import { PostgresMcpSessionRepository } from '../../adapters/persistence/mcp-sessions/postgres-mcp-session.repository';
import { PostgresSessionBus } from '../../adapters/persistence/mcp-sessions/postgres-session-bus';
import { PostgresSessionEvents } from '../../adapters/persistence/mcp-sessions/postgres-session-events';
import { SessionPurge } from '../../adapters/persistence/mcp-sessions/session-purge';
import { ToolChangeWatcher } from '../../adapters/persistence/mcp-sessions/tool-change-watcher';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/** Events kept per session for Last-Event-ID, and for how long. */
export const SESSION_EVENTS = { maxEventsPerSession: 100, ttlMs: 15 * 60 * 1000 };

type Log = (message: string, error?: unknown) => void;

/**
 * MCP sessions: the shared session table, the session bus and event log over
 * PostgreSQL (heard through the one change listener), the GET streams of
 * this replica, the purge, and the /mcp edge's part. The container's
 * Lifecycle starts the purge and closes the streams.
 */
export function bindMcpSessions(c: Container): void {
  const log = (logger: Logger): Log => (message, error) => logger.warn({ err: error }, message);
  c.bind(SessionIdlePolicy).toResolvedValue(({ mcp }: Config) => new SessionIdlePolicy(mcp.sessionIdleSeconds), [TOKENS.Config]);
  c.bind<McpSessionRepository>(TOKENS.McpSessionRepository).toResolvedValue((ds: DataSource) => new PostgresMcpSessionRepository(ds), [TOKENS.DataSource]);
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
  c.bind(ToolChangeWatcher).toResolvedValue((logger: Logger) => {
    let announce: AnnounceToolChanges | undefined;
    let listens: ListenStreams | undefined;
    return new ToolChangeWatcher((change) => Promise.all([
      (announce ??= c.get(AnnounceToolChanges)).execute(change),
      (listens ??= c.get(ListenStreams)).changed(change),
    ]), log(logger));
  }, [TOKENS.Logger]);
  c.bind<NotifiedCache[]>(TOKENS.SessionChannels).toResolvedValue(
    (bus: PostgresSessionBus, watcher: ToolChangeWatcher) => [...bus.channels(), ...watcher.channels()],
    [PostgresSessionBus, ToolChangeWatcher],
  );
  c.bind(SessionPurge).toResolvedValue(
    (ds: DataSource, clock: Clock, idle: SessionIdlePolicy, logger: Logger) =>
      new SessionPurge(ds, { idleCutoff: () => idle.idleCutoff(clock.now()), eventTtlMs: SESSION_EVENTS.ttlMs, log: log(logger) }),
    [TOKENS.DataSource, TOKENS.Clock, SessionIdlePolicy, TOKENS.Logger],
  );
  c.bind(ResumeMcpSession).toResolvedValue(
    (sessions: McpSessionRepository, hasher: KeyHasher, clock: Clock, idle: SessionIdlePolicy) => new ResumeMcpSession(sessions, hasher, clock, idle),
    [TOKENS.McpSessionRepository, TOKENS.KeyHasher, TOKENS.Clock, SessionIdlePolicy],
  );
  c.bind(OpenMcpSession).toResolvedValue(
    (sessions: McpSessionRepository, hasher: KeyHasher, digest: ToolsDigest, clock: Clock, idle: SessionIdlePolicy, { mcp }: Config) =>
      new OpenMcpSession(sessions, new RandomSessionToken(), hasher, digest, clock, { idle, maxPerKey: mcp.maxSessionsPerKey }),
    [TOKENS.McpSessionRepository, TOKENS.KeyHasher, ToolsDigest, TOKENS.Clock, SessionIdlePolicy, TOKENS.Config],
  );
  c.bind(EndMcpSession).toResolvedValue((sessions: McpSessionRepository, clock: Clock) => new EndMcpSession(sessions, clock), [TOKENS.McpSessionRepository, TOKENS.Clock]);
  c.bind(SessionStreams).toResolvedValue(
    (events: PostgresSessionEvents, bus: PostgresSessionBus, config: Config, logger: Logger, places: StreamPlaces) =>
      new SessionStreams(events, bus, {
        maxStreams: config.mcp.maxStreamsPerReplica, maxStreamsPerKey: config.mcp.maxStreamsPerKey, replica: randomUUID(), postStreamMs: longestCallMs(config.mcp),
      }, log(logger), places),
    [PostgresSessionEvents, PostgresSessionBus, TOKENS.Config, TOKENS.Logger, StreamPlaces],
  );
  c.bind(McpSessionEdge).toResolvedValue(
    (resume: ResumeMcpSession, open: OpenMcpSession, end: EndMcpSession, bus: SessionBus, streams: SessionStreams, posts: PostStreams, upstream: UpstreamNotificationStreams, logger: Logger) =>
      new McpSessionEdge(resume, open, end, bus, streams, posts, upstream, (error) => logger.error({ err: error }, 'MCP session request failed')),
    [ResumeMcpSession, OpenMcpSession, EndMcpSession, TOKENS.SessionBus, SessionStreams, PostStreams, UpstreamNotificationStreams, TOKENS.Logger],
  );
}
