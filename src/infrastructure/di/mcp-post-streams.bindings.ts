import { Container } from 'inversify';
import { Logger } from 'pino';
import { longestCallMs, POST_STREAM_RETRY_MS, PostStreams } from '../../adapters/mcp/sessions/post-streams';
import { PostgresSessionEvents } from '../../adapters/persistence/mcp-sessions/postgres-session-events';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/** Resumable SSE answers to POSTs in a session (SEP-1699): their events go into the session's log. */
export function bindMcpPostStreams(c: Container): void {
  c.bind(PostStreams).toResolvedValue(
    (events: PostgresSessionEvents, config: Config, logger: Logger) =>
      new PostStreams(events, { retryMs: POST_STREAM_RETRY_MS, maxCallMs: longestCallMs(config.mcp) }, (message, error) => logger.warn({ err: error }, message)),
    [PostgresSessionEvents, TOKENS.Config, TOKENS.Logger],
  );
}
