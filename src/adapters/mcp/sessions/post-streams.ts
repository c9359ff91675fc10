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
  /** The longest the call may run on once its client has gone: then its server closes whatever is left. */
  maxMs: number;
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

/** Makes the SSE answers to a session's POSTs resumable: each gets its own stream in the session's event log. */
export class PostStreams {
  constructor(
    private readonly log: PostStreamLog,
    private readonly options: PostStreamOptions,
    private readonly warn: (message: string, error?: unknown) => void,
  ) {}

  open(session: McpSession, messages: JSONRPCMessage[]): ResumablePost {
    const requests = messages.filter((m) => 'method' in m && 'id' in m).length;
    return {
      store: new PostStreamEventStore(this.log, session.id, requests, this.warn),
      protocolVersion: session.protocolVersion,
      retryMs: this.options.retryMs,
      maxMs: this.options.maxCallMs + CLOSE_GRACE_MS,
    };
  }
}
