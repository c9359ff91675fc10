import { RelayAnswer, UpstreamRelay } from '../../../application/ports/upstream-mcp.port';
import { loggedAt } from './forwarded-meta';

export interface ModernRelayInput {
  /** The client's token for this call, when it asked for progress. */
  progressToken?: string | number;
  /** The client's io.modelcontextprotocol/logLevel: only with one may the upstream's log messages reach it (from that level up). */
  logLevel?: string;
  signal: AbortSignal;
  /** Sends a notification on this request's own response stream. */
  notify(notification: { method: string; params: Record<string, unknown> }): Promise<void>;
}

/**
 * The client end of a 2026 tools/call of an upstream tool that asked for
 * progress or sent a logLevel: the upstream's progress under the client's
 * token, and its log messages at or above that level, on the request's own
 * stream (2026-07-28 forbids log messages for a request without a
 * logLevel). A 2026 server must not send the client requests of its own on
 * that stream, so an upstream's request is refused here: a 2026 upstream asks
 * in an input_required result instead (input-required-rounds.ts), and a 2025
 * upstream's call runs under parked-tool-calls.ts when the client declared
 * what it asks for. Undefined with neither: the call then goes as a plain
 * stateless one.
 */
export function modernRelay(input: ModernRelayInput): UpstreamRelay | undefined {
  const { progressToken, logLevel } = input;
  if (progressToken === undefined && logLevel === undefined) return undefined;
  return {
    signal: input.signal,
    wantsProgress: progressToken !== undefined,
    progress: async (params) => {
      if (progressToken !== undefined) await input.notify({ method: 'notifications/progress', params: { progressToken, ...params } });
    },
    notify: async (method, params) => {
      if (logLevel !== undefined && method === 'notifications/message' && loggedAt(params.level, logLevel))
        await input.notify({ method, params });
    },
    request: async (): Promise<RelayAnswer> => ({
      error: { code: -32600, message: 'keygate relays no upstream requests to a 2026-07-28 client yet' },
    }),
  };
}

/** A progress token as MCP allows one: a string or a finite number. */
export function progressTokenOf(meta: unknown): string | number | undefined {
  const token = (meta as { progressToken?: unknown } | undefined)?.progressToken;
  return typeof token === 'string' || (typeof token === 'number' && Number.isFinite(token)) ? token : undefined;
}
