import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { LoggingLevel, LoggingLevelSchema, SetLevelRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const SEVERITY = LoggingLevelSchema.options;

type Notify = (notification: { method: 'notifications/message'; params: { level: LoggingLevel; logger: string; data: unknown } }) => Promise<void>;

/**
 * A session's log messages and its `logging/setLevel` threshold. The SDK's
 * own setLevel handler only filters `sendLoggingMessage`, which goes to the
 * session's GET stream; ours go on the stream of the request that logs
 * (a tool call's SSE response), which is what a gateway has to relay.
 */
export class FixtureLog {
  private threshold: LoggingLevel | undefined;

  constructor(server: McpServer) {
    server.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      this.threshold = request.params.level;
      return {};
    });
  }

  async send(notify: Notify, level: LoggingLevel, data: unknown): Promise<void> {
    if (this.threshold && SEVERITY.indexOf(level) < SEVERITY.indexOf(this.threshold)) return;
    await notify({ method: 'notifications/message', params: { level, logger: 'conformance-fixture', data } });
  }
}
