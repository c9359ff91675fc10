import { JSONRPCMessage } from '@modelcontextprotocol/server';
import { McpSession } from '../../../domain/mcp-session';
import { PostStreamEventStore, PostStreamLog } from './post-stream-event-store';

/** How one POST's SSE answer in a session is made resumable (serveStreamableHttp). */
export interface ResumablePost {
  store: PostStreamEventStore;
  /** The session's negotiated version: it, not the request's header, decides the priming event (empty data needs 2025-11-25). */
  protocolVersion: string;
  /** The priming event's `retry:`, in ms. */
  retryMs: number;
  /**
   * Its response closed: `clientGone` when before the end was written (its
   * events then go to the log for a resumption). Settles when the call is
   * over, its last response stored, or after the longest a call may run.
   */
  closed(clientGone: boolean): Promise<void>;
}

export interface PostStreamOptions {
  retryMs: number;
  /** The longest call deadline (MCP_RELAY_CALL_TIMEOUT_MS, MCP_UPSTREAM_TIMEOUT_MS). */
  maxCallMs: number;
}

/**
 * The `retry:` of a POST stream's priming event. One second: what the SDK
 * client waits anyway before its first reconnection, long enough that a
 * dropped stream does not turn into a reconnection storm, short enough that
 * a person waiting on a tool result does not notice.
 */
export const POST_STREAM_RETRY_MS = 1000;

/** The longest a call in a session can run: a resumption waits no longer, and a call outliving its client is closed after it. */
export function longestCallMs(mcp: { relayCallTimeoutMs: number; upstreamTimeoutMs: number }): number {
  return Math.max(mcp.relayCallTimeoutMs, mcp.upstreamTimeoutMs);
}

/** Leeway over a call's own deadline before its server is closed under it. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Makes the SSE answers to a session's POSTs resumable: each is its own
 * stream of the session's log, kept in memory while its client reads it
 * (post-stream-event-store.ts). This replica's open ones are listed, so a
 * resumption asked of another replica can have one written out (`wanted`).
 */
export class PostStreams {
  private readonly live = new Map<string, PostStreamEventStore>();

  constructor(
    private readonly log: PostStreamLog,
    private readonly options: PostStreamOptions,
    private readonly warn: (message: string, error?: unknown) => void,
  ) {}

  get size(): number {
    return this.live.size;
  }

  open(session: McpSession, messages: JSONRPCMessage[]): ResumablePost {
    const requests = messages.filter((m) => 'method' in m && 'id' in m).length;
    const store = new PostStreamEventStore(this.log, session.id, requests, this.warn);
    const name = liveName(session.id, store.stream);
    this.live.set(name, store);
    const maxMs = this.options.maxCallMs + CLOSE_GRACE_MS;
    return {
      store,
      protocolVersion: session.protocolVersion,
      retryMs: this.options.retryMs,
      closed: async (clientGone) => {
        if (clientGone) void store.spill();
        await outlive(store, maxMs);
        if (this.live.get(name) === store) this.live.delete(name);
      },
    };
  }

  /** Writes out every stream held (asks for them may have been missed). */
  spillAll(): void {
    for (const store of this.live.values()) void store.spill();
  }

  /** Another replica resumes the stream `stream` of a session: if this replica holds it, its events go to the log. */
  wanted(sessionId: string, stream: number): void {
    void this.live.get(liveName(sessionId, stream))?.spill();
  }
}

function liveName(sessionId: string, stream: number): string {
  return `${sessionId} ${stream}`;
}

/** Settles when the POST's last response is handed over, or after `maxMs` at the latest. */
function outlive(store: PostStreamEventStore, maxMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, maxMs);
    timer.unref();
  });
  return Promise.race([store.finished, bound]).finally(() => clearTimeout(timer));
}
