import { Container } from 'inversify';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ResourceStore } from '../../application/ports/resource-store.port';
import { SessionBus } from '../../application/ports/session-bus.port';
import { UpstreamMcp } from '../../application/ports/upstream-mcp.port';
import { UpstreamSessionStore } from '../../application/ports/upstream-session-store.port';
import { CloseUpstreamSessions } from '../../application/use-cases/gateway/mcp-sessions/close-upstream-sessions.use-case';
import { SessionRelays } from '../../adapters/mcp/relay/session-relays';
import { NotifiedCache } from '../../adapters/persistence/hot-path/change-listener';
import { CachedUpstreamSessionStore } from '../../adapters/persistence/mcp-sessions/cached-upstream-session-store';
import { SESSION_ENDED_CHANNEL } from '../../adapters/persistence/mcp-sessions/postgres-session-bus';
import { PostgresUpstreamSessionStore } from '../../adapters/persistence/mcp-sessions/postgres-upstream-session-store';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/** Server-to-client requests awaiting answers per session and replica, and messages relayed per call. */
export const RELAY_BOUNDS = { maxPendingPerSession: 16, maxMessagesPerCall: 1000 };

/**
 * keygate's sessions with upstreams per client session, and the relay during
 * a tools/call: the store, the relays the SDK server of a session request
 * uses, and the upstream sessions closed when their client session ends
 * (heard through the one change listener).
 */
export function bindMcpRelay(c: Container): void {
  c.bind(CachedUpstreamSessionStore).toResolvedValue((ds: DataSource) => new CachedUpstreamSessionStore(new PostgresUpstreamSessionStore(ds)), [TOKENS.DataSource]);
  c.bind<UpstreamSessionStore>(TOKENS.UpstreamSessionStore).toService(CachedUpstreamSessionStore);
  c.bind(SessionRelays).toResolvedValue(
    (bus: SessionBus, store: UpstreamSessionStore, { mcp }: Config) => new SessionRelays(bus, store, {
      ...RELAY_BOUNDS, maxBytesPerCall: mcp.upstreamMaxBytes, answerTimeoutMs: mcp.relayAnswerTimeoutMs, callTimeoutMs: mcp.relayCallTimeoutMs,
    }),
    [TOKENS.SessionBus, TOKENS.UpstreamSessionStore, TOKENS.Config],
  );
  c.bind(CloseUpstreamSessions).toResolvedValue(
    (store: UpstreamSessionStore, records: ResourceStore, upstream: UpstreamMcp) => new CloseUpstreamSessions(store, records, upstream),
    [TOKENS.UpstreamSessionStore, TOKENS.ResourceStore, TOKENS.UpstreamMcp],
  );
  // Built at the first session end heard, so that a job, which never listens, builds no upstream client for it.
  c.bind<NotifiedCache[]>(TOKENS.RelayChannels).toResolvedValue((logger: Logger, views: CachedUpstreamSessionStore) => {
    let close: CloseUpstreamSessions | undefined;
    const ended = (id: string) => {
      // `*` (a TRUNCATE) names no session; their rows go with them.
      if (id === '*') return;
      (close ??= c.get(CloseUpstreamSessions)).execute({ clientSessionId: id })
        .catch((error: unknown) => logger.warn({ err: error }, 'could not close the upstream sessions of an ended MCP session'));
    };
    const ignore = () => undefined;
    return [...views.channels, { channel: SESSION_ENDED_CHANNEL, evict: ended, enable: ignore, disable: ignore }];
  }, [TOKENS.Logger, CachedUpstreamSessionStore]);
}
