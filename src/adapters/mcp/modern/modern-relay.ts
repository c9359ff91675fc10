import { RelayAnswer, UpstreamRelay } from '../../../application/ports/upstream-mcp.port';

export interface ModernRelayInput {
  /** The client's token for this call, when it asked for progress. */
  progressToken?: string | number;
  signal: AbortSignal;
  /** Sends a notification on this request's own response stream. */
  notify(notification: { method: string; params: Record<string, unknown> }): Promise<void>;
}

/**
 * The client end of a 2026 tools/call of an upstream tool that asked for
 * progress: the upstream's progress under the client's token, on the
 * request's own stream. Log messages are not relayed: the 2026 leg declares
 * no logging capability (plan R8 is open), and 2026-07-28 forbids them
 * anyway for a request without a logLevel. A 2026 server must not send the
 * client requests of its own on that stream, so an upstream's request is
 * refused here (when the client declared what it asks for, the call runs
 * under parked-tool-calls.ts instead, which turns it into input_required rounds). Undefined without a progress token:
 * the call then goes as a plain stateless one.
 */
export function modernRelay(input: ModernRelayInput): UpstreamRelay | undefined {
  const { progressToken } = input;
  if (progressToken === undefined) return undefined;
  return {
    signal: input.signal,
    wantsProgress: true,
    progress: (params) => input.notify({ method: 'notifications/progress', params: { progressToken, ...params } }),
    notify: async () => undefined,
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
