import { RpcMessage, RpcRequestId, SessionBus } from '../../src/application/ports/session-bus.port';

/**
 * The session bus in memory: one hub shared by any number of replica views,
 * each with its own waiters and handlers, as replicas are. Stream messages
 * are kept per session, numbered from 1, for sessions the hub was told of.
 */
export class InMemorySessionBusHub {
  private readonly views: InMemorySessionBus[] = [];
  readonly streams = new Map<string, RpcMessage[]>();

  replica(): InMemorySessionBus {
    const view = new InMemorySessionBus(this);
    this.views.push(view);
    return view;
  }

  /** A live session: publishToStream to any other one answers false. */
  open(sessionId: string): void {
    this.streams.set(sessionId, []);
  }

  end(sessionId: string): void {
    this.streams.delete(sessionId);
    for (const view of this.views) view.ended(sessionId);
  }

  broadcast(sessionId: string, message: RpcMessage): void {
    // A copy, as a NOTIFY payload would be.
    for (const view of this.views) view.received(sessionId, JSON.parse(JSON.stringify(message)) as RpcMessage);
  }
}

export class InMemorySessionBus implements SessionBus {
  private readonly waiters = new Map<string, (message: RpcMessage | null) => void>();
  private readonly handlers = new Map<string, Set<(message: RpcMessage) => void>>();

  constructor(private readonly hub: InMemorySessionBusHub) {}

  /** Responses this replica still waits for. */
  get waiting(): number {
    return this.waiters.size;
  }

  async deliver(sessionId: string, message: RpcMessage): Promise<void> {
    queueMicrotask(() => this.hub.broadcast(sessionId, message));
  }

  awaitResponse(sessionId: string, requestId: RpcRequestId, timeoutMs: number, signal?: AbortSignal): Promise<RpcMessage | null> {
    const key = `${sessionId} ${JSON.stringify(requestId)}`;
    if (this.waiters.has(key) || signal?.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle(null), timeoutMs);
      const abandon = () => settle(null);
      const settle = (message: RpcMessage | null) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abandon);
        this.waiters.delete(key);
        resolve(message);
      };
      this.waiters.set(key, settle);
      signal?.addEventListener('abort', abandon, { once: true });
    });
  }

  onNotification(sessionId: string, handler: (message: RpcMessage) => void): () => void {
    const set = this.handlers.get(sessionId) ?? new Set();
    this.handlers.set(sessionId, set);
    set.add(handler);
    return () => void set.delete(handler);
  }

  async publishToStream(sessionId: string, message: RpcMessage): Promise<boolean> {
    const stream = this.hub.streams.get(sessionId);
    if (!stream) return false;
    stream.push(message);
    return true;
  }

  received(sessionId: string, message: RpcMessage): void {
    const isResponse = 'result' in message || 'error' in message;
    if (isResponse) this.waiters.get(`${sessionId} ${JSON.stringify(message.id)}`)?.(message);
    else for (const handler of this.handlers.get(sessionId) ?? []) handler(message);
  }

  ended(sessionId: string): void {
    for (const [key, settle] of this.waiters) if (key.startsWith(`${sessionId} `)) settle(null);
    this.handlers.delete(sessionId);
  }
}
