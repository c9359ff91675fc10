import { RelayAnswer, UpstreamRelay } from '../../../application/ports/upstream-mcp.port';
import { RpcMessage, RpcRequestId, SessionBus } from '../../../application/ports/session-bus.port';
import { AbortSource } from '../../../application/ports/abort-source';
import { LazyAbort } from '../upstream/lazy-abort';
import { LinkedAbort } from '../upstream/linked-abort';
import { PendingRequests } from './pending-requests';

export interface RelayLimits {
  /** Server-to-client requests awaiting answers at once, per session and replica. */
  maxPendingPerSession: number;
  /** Messages relayed to the client during one call; past it the rest are dropped and requests refused. */
  maxMessagesPerCall: number;
  /** Bytes of those messages (MCP_UPSTREAM_MAX_BYTES). */
  maxBytesPerCall: number;
  /** Longest wait for one client answer; never past the call's own deadline. */
  answerTimeoutMs: number;
}

export interface RelayDeps {
  bus: SessionBus;
  pending: PendingRequests;
  limits: RelayLimits;
  /** An id for a request keygate sends the client: unguessable, so a client cannot answer one it was not sent. */
  newRequestId: () => string;
  now: () => number;
}

export interface RelayedCall {
  sessionId: string;
  /** The client's id of the tools/call: what its notifications/cancelled names. */
  callRequestId: RpcRequestId;
  /** The client's `_meta.progressToken`, when it sent one. */
  progressToken: string | number | undefined;
  /** When the upstream contact gives up (MCP_UPSTREAM_TIMEOUT_MS from its start). */
  deadline: number;
  /** Writes a message on the call's own SSE response. */
  send: (message: RpcMessage) => Promise<void>;
  /** Aborted when the call's HTTP exchange ends. */
  signal?: AbortSignal;
}

/** Answer codes the upstream gets when keygate answers for the client. */
const REFUSED = -32603;
const TIMED_OUT = -32001;
const MAX_MESSAGE_CHARS = 300;

/**
 * The client end of one upstream tools/call in a session: progress under the
 * client's token, logging messages and the upstream's requests written on
 * the call's SSE response, the client's answers (POSTed to any replica)
 * awaited through the session bus, and its notifications/cancelled for this
 * call aborting `signal`. `close()` when the call is over.
 */
export class ToolCallRelay implements UpstreamRelay {
  readonly signal: AbortSource;
  readonly wantsProgress: boolean;
  private readonly cancelled = new LazyAbort();
  private readonly linked: LinkedAbort;
  private readonly unsubscribe: () => void;
  private messages = 0;
  private bytes = 0;

  constructor(
    private readonly deps: RelayDeps,
    private readonly call: RelayedCall,
  ) {
    this.wantsProgress = call.progressToken !== undefined;
    this.linked = new LinkedAbort(call.signal ? [this.cancelled, call.signal] : [this.cancelled]);
    this.signal = this.linked.source;
    this.unsubscribe = deps.bus.onNotification(call.sessionId, (message) => {
      const params = message.params as { requestId?: unknown } | undefined;
      if (message.method === 'notifications/cancelled' && params?.requestId === call.callRequestId)
        this.cancelled.abort(new Error('cancelled by the client'));
    });
  }

  close(): void {
    this.unsubscribe();
    this.linked.dispose();
  }

  async progress(params: { progress: number; total?: number; message?: string }): Promise<void> {
    if (this.call.progressToken === undefined) return;
    await this.write({ jsonrpc: '2.0', method: 'notifications/progress', params: { ...params, progressToken: this.call.progressToken } });
  }

  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    await this.write({ jsonrpc: '2.0', method, params });
  }

  async request(method: string, params: Record<string, unknown>): Promise<RelayAnswer> {
    const { bus, pending, limits } = this.deps;
    const { sessionId } = this.call;
    if (this.signal.aborted) return refused('the call was cancelled');
    if (!pending.acquire(sessionId, limits.maxPendingPerSession))
      return refused(`the client already has ${limits.maxPendingPerSession} requests to answer`);
    try {
      const id = this.deps.newRequestId();
      const wait = Math.min(limits.answerTimeoutMs, this.call.deadline - this.deps.now());
      if (wait <= 0) return timedOut();
      // Awaited before the request is written, so an answer that comes at once is not missed.
      const answer = bus.awaitResponse(sessionId, id, wait);
      if (!(await this.write({ jsonrpc: '2.0', id, method, params }))) return refused('keygate relays no more messages in this call');
      const message = await answer;
      return message === null ? timedOut() : answerOf(message);
    } finally {
      pending.release(sessionId);
    }
  }

  /** False when past the call's message or byte bound (the message is dropped). */
  private async write(message: RpcMessage): Promise<boolean> {
    const size = Buffer.byteLength(JSON.stringify(message));
    if (this.messages + 1 > this.deps.limits.maxMessagesPerCall || this.bytes + size > this.deps.limits.maxBytesPerCall) return false;
    this.messages += 1;
    this.bytes += size;
    try {
      await this.call.send(message);
      return true;
    } catch {
      // The client's response stream is gone: nothing more reaches it in this call.
      return false;
    }
  }
}

function answerOf(message: RpcMessage): RelayAnswer {
  const result = message.result;
  if (result !== null && typeof result === 'object' && !Array.isArray(result)) return { result: result as Record<string, unknown> };
  const error = message.error as { code?: unknown; message?: unknown } | undefined;
  if (error && typeof error === 'object') {
    const code = Number.isSafeInteger(error.code) ? (error.code as number) : REFUSED;
    return { error: { code, message: String(error.message ?? 'the client answered with an error').slice(0, MAX_MESSAGE_CHARS) } };
  }
  return refused('the client answered with neither a result nor an error');
}

function refused(why: string): RelayAnswer {
  return { error: { code: REFUSED, message: `keygate could not relay the request: ${why}` } };
}

function timedOut(): RelayAnswer {
  return { error: { code: TIMED_OUT, message: 'The client did not answer in time' } };
}
