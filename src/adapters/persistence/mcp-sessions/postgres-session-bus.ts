import { DataSource } from 'typeorm';
import { RpcMessage, RpcRequestId, SessionBus } from '../../../application/ports/session-bus.port';
import { NotifiedCache } from '../hot-path/change-listener';
import { PostgresSessionEvents, STREAM_CHANNEL } from './postgres-session-events';

/** Client messages of sessions, for the replica that waits for them. */
export const BUS_CHANNEL = 'keygate_mcp_bus';
/** A session ended (DELETE, idle, its key revoked, evicted): payload its internal id, `*` for all. */
export const SESSION_ENDED_CHANNEL = 'keygate_mcp_session_ended';

/** NOTIFY refuses payloads of 8000 bytes or more; the envelope stays well under. */
export const MAX_NOTIFY_BYTES = 7900;
/** The longest awaitResponse; a caller asking for more gets this. */
export const MAX_AWAIT_MS = 10 * 60 * 1000;
/** Responses awaited at once on one replica; past it awaitResponse answers null at once. */
export const MAX_WAITERS = 10_000;

type Envelope = { s: string; k: 'r'; id: RpcRequestId } | { s: string; k: 'n' };
type Wire = Envelope & ({ m: RpcMessage } | { row: string });

interface Waiter {
  resolve(message: RpcMessage | null): void;
}

/** Told when a session this replica streams has news or has ended. */
export interface StreamWaker {
  wake(): void;
  end(): void;
}

/**
 * The session bus over PostgreSQL: a client message is sent as a NOTIFY
 * (through a table row when too large for one) and every replica's change
 * listener hands it here; only the replica that registered interest in that
 * response or those notifications keeps it. Server-to-client messages go
 * through the event log, whose NOTIFY wakes the replica holding the stream.
 */
export class PostgresSessionBus implements SessionBus {
  private readonly waiters = new Map<string, Waiter>();
  private readonly notificationHandlers = new Map<string, Set<(message: RpcMessage) => void>>();
  // A session's standalone stream and its resumed POST streams: each is woken by the session's NOTIFY.
  private readonly streams = new Map<string, Set<StreamWaker>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly events: PostgresSessionEvents,
    private readonly log: (message: string, error?: unknown) => void = () => undefined,
  ) {}

  /** What the change listener must hand over; while it is disconnected nothing arrives, so reconnecting wakes every stream. */
  channels(): NotifiedCache[] {
    const wakeAll = () => this.streams.forEach((set) => set.forEach((s) => s.wake()));
    const ignore = () => undefined;
    return [
      { channel: BUS_CHANNEL, evict: (payload) => void this.received(payload), enable: ignore, disable: ignore },
      { channel: STREAM_CHANNEL, evict: (id) => this.streams.get(id)?.forEach((s) => s.wake()), enable: wakeAll, disable: ignore },
      { channel: SESSION_ENDED_CHANNEL, evict: (id) => this.ended(id), enable: ignore, disable: ignore },
    ];
  }

  async deliver(sessionId: string, message: RpcMessage): Promise<void> {
    const envelope: Envelope = isResponse(message) ? { s: sessionId, k: 'r', id: message.id as RpcRequestId } : { s: sessionId, k: 'n' };
    const whole = JSON.stringify({ ...envelope, m: message });
    if (Buffer.byteLength(whole) <= MAX_NOTIFY_BYTES) return void (await this.notify(whole));
    const [{ id }] = await this.dataSource.query<{ id: string }[]>(
      'INSERT INTO mcp_session_bus (session_id, payload) VALUES ($1, $2) RETURNING id::text AS id',
      [sessionId, JSON.stringify(message)],
    );
    const pointer = JSON.stringify({ ...envelope, row: id });
    // A response id is bounded by the body check, but a pointer must fit whatever it carries.
    if (Buffer.byteLength(pointer) > MAX_NOTIFY_BYTES) throw new Error('session bus: message id too long for a NOTIFY');
    await this.notify(pointer);
  }

  awaitResponse(sessionId: string, requestId: RpcRequestId, timeoutMs: number, signal?: AbortSignal): Promise<RpcMessage | null> {
    const key = waiterKey(sessionId, requestId);
    if (this.waiters.size >= MAX_WAITERS || this.waiters.has(key) || signal?.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle(null), Math.max(0, Math.min(timeoutMs, MAX_AWAIT_MS)));
      // A wait nobody wants any more frees its place among MAX_WAITERS at once.
      const abandon = () => settle(null);
      const settle = (message: RpcMessage | null) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abandon);
        if (this.waiters.get(key) === waiter) this.waiters.delete(key);
        resolve(message);
      };
      const waiter = { resolve: settle };
      this.waiters.set(key, waiter);
      signal?.addEventListener('abort', abandon, { once: true });
    });
  }

  onNotification(sessionId: string, handler: (message: RpcMessage) => void): () => void {
    let handlers = this.notificationHandlers.get(sessionId);
    if (!handlers) this.notificationHandlers.set(sessionId, (handlers = new Set()));
    handlers.add(handler);
    return () => {
      handlers.delete(handler);
      if (handlers.size === 0 && this.notificationHandlers.get(sessionId) === handlers) this.notificationHandlers.delete(sessionId);
    };
  }

  async publishToStream(sessionId: string, message: RpcMessage): Promise<boolean> {
    return (await this.events.append(sessionId, JSON.stringify(message))) !== null;
  }

  /** The stream registries of this replica register each stream they hold. */
  watchStream(sessionId: string, waker: StreamWaker): () => void {
    let wakers = this.streams.get(sessionId);
    if (!wakers) this.streams.set(sessionId, (wakers = new Set()));
    wakers.add(waker);
    return () => {
      wakers.delete(waker);
      if (wakers.size === 0 && this.streams.get(sessionId) === wakers) this.streams.delete(sessionId);
    };
  }

  private async notify(payload: string): Promise<void> {
    await this.dataSource.query('SELECT pg_notify($1, $2)', [BUS_CHANNEL, payload]);
  }

  private async received(payload: string): Promise<void> {
    let wire: Wire;
    try {
      wire = JSON.parse(payload) as Wire;
    } catch {
      return;
    }
    const waiter = wire.k === 'r' ? this.waiters.get(waiterKey(wire.s, wire.id)) : undefined;
    const handlers = wire.k === 'n' ? this.notificationHandlers.get(wire.s) : undefined;
    // Nobody here wants it: the large body is not even read.
    if (!waiter && !handlers) return;
    const message = 'm' in wire ? wire.m : await this.readRow(wire.row, wire.s);
    if (message === null) return;
    waiter?.resolve(message);
    for (const handler of handlers ?? []) {
      try {
        handler(message);
      } catch (error) {
        this.log('session bus: a notification handler failed', error);
      }
    }
  }

  private async readRow(id: string, sessionId: string): Promise<RpcMessage | null> {
    try {
      const rows = await this.dataSource.query<{ payload: string }[]>(
        'SELECT payload FROM mcp_session_bus WHERE id = $1 AND session_id = $2',
        [id, sessionId],
      );
      return rows.length === 0 ? null : (JSON.parse(rows[0].payload) as RpcMessage);
    } catch (error) {
      this.log('session bus: could not read a large message', error);
      return null;
    }
  }

  private ended(id: string): void {
    const all = id === '*';
    for (const [key, waiter] of this.waiters) if (all || key.startsWith(`${id} `)) waiter.resolve(null);
    if (all) this.notificationHandlers.clear();
    else this.notificationHandlers.delete(id);
    for (const [sessionId, wakers] of this.streams) if (all || sessionId === id) [...wakers].forEach((stream) => stream.end());
  }
}

function isResponse(message: RpcMessage): boolean {
  return ('result' in message || 'error' in message) && (typeof message.id === 'string' || typeof message.id === 'number');
}

function waiterKey(sessionId: string, requestId: RpcRequestId): string {
  return `${sessionId} ${JSON.stringify(requestId)}`;
}
