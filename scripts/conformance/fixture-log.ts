import type { LoggingLevel, McpServer, ServerContext } from '@modelcontextprotocol/server';

const SEVERITY: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/**
 * Log messages of one server instance. On a 2025 session: its
 * `logging/setLevel` threshold, and each message on the stream of the
 * request that logs (a tool call's SSE response, which is what a gateway has
 * to relay; the SDK's own setLevel only filters the session's GET stream).
 * On a 2026-07-28 request: the SDK's request-scoped `log`, which sends
 * nothing unless the request's `_meta` named a `logLevel`.
 */
export class FixtureLog {
  private threshold: LoggingLevel | undefined;

  constructor(
    server: McpServer,
    private readonly era: 'legacy' | 'modern',
  ) {
    if (era === 'legacy') {
      server.server.setRequestHandler('logging/setLevel', async (request) => {
        this.threshold = request.params.level;
        return {};
      });
    }
  }

  async send(ctx: ServerContext, level: LoggingLevel, data: unknown): Promise<void> {
    if (this.era === 'modern') return ctx.mcpReq.log(level, data, 'conformance-fixture');
    if (this.threshold && SEVERITY.indexOf(level) < SEVERITY.indexOf(this.threshold)) return;
    await ctx.mcpReq.notify({ method: 'notifications/message', params: { level, logger: 'conformance-fixture', data } });
  }
}
