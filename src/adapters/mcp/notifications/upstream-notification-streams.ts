import { Agent } from 'undici';
import { UpstreamServer } from '../../../application/ports/upstream-mcp.port';
import { RelayUpstreamNotificationInput } from '../../../application/use-cases/gateway/mcp-sessions/relay-upstream-notification.use-case';
import { UpstreamView } from '../../../application/use-cases/gateway/external/upstream-view';
import { EventStreamLimits, UpstreamEventStream } from './upstream-event-stream';

/** The client session whose GET stream this replica holds, and the endpoint it was opened on. */
export interface StreamHolder {
  sessionId: string;
  keyId: string;
  userId: string;
  view: UpstreamView;
}

/** keygate's held session with one upstream, as the store gives it. */
export interface HeldTarget {
  serverId: string;
  upstreamSessionId: string;
  protocolVersion: string;
}

/** What a stream of one upstream's notifications is to this class: UpstreamEventStream, or a 2026 upstream's listen (modern-upstream-listens.ts). */
export interface NotificationStream {
  readonly closed: boolean;
  close(): void;
  whenListening(): Promise<boolean>;
}

/** A 2026-07-28 upstream of the session, heard through its own subscriptions/listen: `key` changes when what it should ask for does. */
export interface ListenedTarget {
  serverId: string;
  key: string;
  open(onMessage: (message: Record<string, unknown>) => void): NotificationStream;
}

export interface UpstreamNotificationSources {
  /** The client session's held upstream sessions. */
  held(sessionId: string): Promise<HeldTarget[]>;
  /** Its 2026-07-28 upstreams (no held session: keygate listens to them instead), besides the held ones. */
  listened?(holder: StreamHolder, held: ReadonlySet<string>): Promise<ListenedTarget[]>;
  /** The server record's address and headers; null when it is gone. */
  server(userId: string, serverId: string): Promise<UpstreamServer | null>;
  relay(input: RelayUpstreamNotificationInput): Promise<unknown>;
  /** Tells the replica that asked (resync) that this one listens to the session's stream of that upstream. */
  acknowledge?(sessionId: string, serverId: string): Promise<unknown>;
}

export interface UpstreamNotificationOptions extends EventStreamLimits {
  /** Upstream streams open on this replica (MCP_MAX_UPSTREAM_STREAMS_PER_REPLICA); past it no new one opens. */
  maxStreams: number;
  /** Messages relayed per second per client session, and the burst allowed; past it they are dropped. */
  messagesPerSecond: number;
  burst: number;
  /** How often held sessions opened since (a first tools/call on any replica) are looked for. */
  resyncMs: number;
}

interface Attached {
  holder: StreamHolder;
  streams: Map<string, { upstreamSessionId: string; stream: NotificationStream; retry?: boolean }>;
  tokens: number;
  refilledAt: number;
  dropped: number;
  /** Relays run one after the other, so the client gets them in the upstream's order. */
  queue: Promise<void>;
  queued: number;
  syncing: Promise<void>;
}

/**
 * While this replica holds a client session's GET stream, it holds the GET
 * streams of that session's upstream sessions (all of them: an upstream's
 * list_changed matters without any subscription) and hands what they send
 * to the relay use-case. Opened when the client's stream opens, looked at
 * again when a subscription is added (any replica NOTIFYs) and every
 * `resyncMs`, closed when the client's stream closes (which its session's
 * end also does). Bounded per replica (streams) and per session (messages
 * per second, queued relays).
 */
export class UpstreamNotificationStreams {
  private readonly attached = new Map<string, Attached>();
  private open = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly sources: UpstreamNotificationSources,
    private readonly agent: Agent,
    private readonly options: UpstreamNotificationOptions,
    private readonly log: (message: string, error?: unknown) => void = () => undefined,
  ) {}

  get streamCount(): number {
    return this.open;
  }

  /** Starts following the session's upstreams; the function returned stops it. */
  attach(holder: StreamHolder): () => void {
    this.detach(holder.sessionId);
    const entry: Attached = {
      holder,
      streams: new Map(),
      tokens: this.options.burst,
      refilledAt: Date.now(),
      dropped: 0,
      queue: Promise.resolve(),
      queued: 0,
      syncing: Promise.resolve(),
    };
    this.attached.set(holder.sessionId, entry);
    this.sync(entry);
    this.timer ??= setInterval(() => this.attached.forEach((each) => this.sync(each)), this.options.resyncMs).unref();
    return () => {
      if (this.attached.get(holder.sessionId) === entry) this.detach(holder.sessionId);
    };
  }

  /**
   * Another replica is about to forward a subscription of the session (it
   * waits, bounded, to hear back): its upstream sessions are looked at again,
   * if this replica follows it, and each stream open, or open within the
   * connect timeout, is told back.
   */
  resync(sessionId: string): void {
    const entry = this.attached.get(sessionId);
    if (!entry) return;
    this.sync(entry);
    void entry.syncing
      .then(() =>
        Promise.all(
          [...entry.streams].map(async ([serverId, { stream }]) => {
            if (await within(stream.whenListening(), this.options.connectTimeoutMs)) await this.sources.acknowledge?.(sessionId, serverId);
          }),
        ),
      )
      .catch((error) => this.log('could not tell that an upstream event stream listens', error));
  }

  /**
   * The same on this replica: null when it does not hold the session's
   * stream; else whether its stream of that upstream listens, waiting at
   * most `ms` for it to open.
   */
  async listening(sessionId: string, serverId: string, ms: number): Promise<boolean | null> {
    const entry = this.attached.get(sessionId);
    if (!entry) return null;
    this.sync(entry);
    const deadline = Date.now() + ms;
    if (
      !(await within(
        entry.syncing.then(() => true),
        ms,
      ))
    )
      return false;
    const open = entry.streams.get(serverId);
    return open !== undefined && within(open.stream.whenListening(), Math.max(0, deadline - Date.now()));
  }

  closeAll(): void {
    for (const id of [...this.attached.keys()]) this.detach(id);
  }

  private detach(sessionId: string): void {
    const entry = this.attached.get(sessionId);
    if (!entry) return;
    this.attached.delete(sessionId);
    for (const { stream } of entry.streams.values()) this.closeStream(stream);
    entry.streams.clear();
    if (this.attached.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private sync(entry: Attached): void {
    entry.syncing = entry.syncing
      .then(() => this.syncNow(entry))
      .catch((error) => this.log('could not open the upstream event streams of an MCP session', error));
  }

  private async syncNow(entry: Attached): Promise<void> {
    if (this.attached.get(entry.holder.sessionId) !== entry) return;
    const targets = await this.sources.held(entry.holder.sessionId);
    const listened = (await this.sources.listened?.(entry.holder, new Set(targets.map((t) => t.serverId)))) ?? [];
    const wanted = new Map<string, { upstreamSessionId: string }>([
      ...targets.map((t) => [t.serverId, t] as const),
      ...listened.map((t) => [t.serverId, { upstreamSessionId: t.key }] as const),
    ]);
    for (const [serverId, open] of entry.streams) {
      const target = wanted.get(serverId);
      // A stream that ended for good is tried again only for a new upstream session (a 2026 upstream's listen: at the next look).
      if (target === undefined || target.upstreamSessionId !== open.upstreamSessionId || (open.retry === true && open.stream.closed)) {
        this.closeStream(open.stream);
        entry.streams.delete(serverId);
      }
    }
    for (const target of listened) {
      if (entry.streams.has(target.serverId)) continue;
      if (this.open >= this.options.maxStreams) {
        this.log(
          `no upstream listen opened: this replica holds ${this.options.maxStreams} upstream streams (MCP_MAX_UPSTREAM_STREAMS_PER_REPLICA)`,
        );
        return;
      }
      if (this.attached.get(entry.holder.sessionId) !== entry) return;
      this.open++;
      const stream = target.open((message) => this.received(entry, target.serverId, message));
      entry.streams.set(target.serverId, { upstreamSessionId: target.key, stream, retry: true });
    }
    for (const target of targets) {
      if (entry.streams.has(target.serverId)) continue;
      if (this.open >= this.options.maxStreams) {
        this.log(`no upstream event stream opened: this replica holds ${this.options.maxStreams} (MCP_MAX_UPSTREAM_STREAMS_PER_REPLICA)`);
        return;
      }
      const server = await this.sources.server(entry.holder.userId, target.serverId);
      if (server === null || this.attached.get(entry.holder.sessionId) !== entry) continue;
      this.open++;
      const stream = new UpstreamEventStream(
        { ...server, ...target },
        this.agent,
        this.options,
        (message) => this.received(entry, target.serverId, message),
        this.log,
      );
      entry.streams.set(target.serverId, { upstreamSessionId: target.upstreamSessionId, stream });
    }
  }

  private closeStream(stream: NotificationStream): void {
    stream.close();
    this.open--;
  }

  private received(entry: Attached, serverId: string, message: Record<string, unknown>): void {
    if (this.attached.get(entry.holder.sessionId) !== entry) return;
    const now = Date.now();
    entry.tokens = Math.min(this.options.burst, entry.tokens + ((now - entry.refilledAt) / 1000) * this.options.messagesPerSecond);
    entry.refilledAt = now;
    if (entry.tokens < 1 || entry.queued >= this.options.burst) {
      if (entry.dropped++ === 0) this.log('an upstream sent an MCP session more messages than it may relay; dropping them');
      return;
    }
    entry.tokens -= 1;
    entry.queued++;
    const { sessionId, keyId, userId, view } = entry.holder;
    entry.queue = entry.queue
      .then(() => this.sources.relay({ clientSessionId: sessionId, keyId, userId, serverId, view, message }))
      .then(
        () => undefined,
        (error: unknown) => this.log('could not relay an upstream notification', error),
      )
      .finally(() => entry.queued--);
  }
}

/** What `promise` gives, or false once `ms` have passed. */
function within(promise: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
