import { Response } from 'express';
import { McpSession } from '../../../domain/mcp-session';
import { RPC, sendRpcError } from '../json-rpc';
import { PostStreamResumption, PostStreamSource } from './post-stream-resumption';

/** What a stream needs of the event log and the stream claim (PostgresSessionEvents). */
export interface StreamStore extends PostStreamSource {
  claimStream(sessionId: string, replica: string, staleMs: number): Promise<number | null>;
  refreshStream(sessionId: string, replica: string): Promise<boolean>;
  releaseStream(sessionId: string, replica: string): Promise<void>;
  postStreamOpenedAt(sessionId: string, stream: number): Promise<number | null>;
}

/** Where a stream hears that its session has news or has ended (PostgresSessionBus). */
export interface StreamWatch {
  watchStream(sessionId: string, waker: { wake(): void; end(): void }): () => void;
}

export interface SessionStreamOptions {
  /** Open streams on this replica; past it a GET gets 503. */
  maxStreams: number;
  /** This replica's name in the stream claim. */
  replica: string;
  /** Comment sent to keep proxies from closing an idle stream; the claim is refreshed with it. */
  keepAliveMs?: number;
  /**
   * The longest a POST's SSE answer can run (the longest call deadline): a
   * resumption waits no longer than this after the stream opened.
   */
  postStreamMs?: number;
}

const KEEP_ALIVE_MS = 15_000;
/** A claim not refreshed for three keep-alives belongs to a replica that is gone. */
const STALE_KEEP_ALIVES = 3;
const READ_BATCH = 100;
/** Leeway over a call's deadline for its last events to be written, and for clock skew between replicas and PostgreSQL. */
const POST_STREAM_GRACE_MS = 10_000;
const POST_STREAM_MS = 300_000;

interface OpenStream {
  lastSeq: number;
  pumping: boolean;
  again: boolean;
  close(): void;
}

/**
 * The GET streams this replica holds: standalone ones, one per session across
 * all replicas (the claim in PostgreSQL), each fed from the session's event
 * log when woken, with a keep-alive that also notices a session ended or a
 * key revoked while no notification could arrive; and resumptions of POST
 * streams (post-stream-resumption.ts), which claim nothing. Both count
 * against the one bound per replica.
 */
export class SessionStreams {
  private readonly open = new Map<string, OpenStream>();
  private readonly resumed = new Set<PostStreamResumption>();
  private reserved = 0;

  constructor(
    private readonly store: StreamStore,
    private readonly watch: StreamWatch,
    private readonly options: SessionStreamOptions,
    private readonly log: (message: string, error?: unknown) => void = () => undefined,
  ) {}

  get size(): number {
    return this.reserved;
  }

  /**
   * `lastEventId`: replay the events after it; null: only what comes from now on.
   * `opened` runs once the stream is claimed; what it returns runs when the stream closes.
   */
  async serve(res: Response, session: McpSession, lastEventId: number | null, opened?: () => () => void): Promise<void> {
    if (!this.reserve(res)) return;
    const keepAliveMs = this.options.keepAliveMs ?? KEEP_ALIVE_MS;
    let head: number | null;
    try {
      head = await this.store.claimStream(session.id, this.options.replica, keepAliveMs * STALE_KEEP_ALIVES);
    } catch (error) {
      this.reserved--;
      throw error;
    }
    if (head === null) {
      this.reserved--;
      return sendRpcError(res, 409, null, RPC.SERVER_ERROR, 'Conflict: this session already has an open stream');
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    let closed = false;
    const stream: OpenStream = {
      lastSeq: lastEventId ?? head,
      pumping: false,
      again: false,
      close: () => {
        if (closed) return;
        closed = true;
        clearInterval(keepAlive);
        unwatch();
        closing?.();
        this.open.delete(session.id);
        this.reserved--;
        this.store.releaseStream(session.id, this.options.replica).catch((error) => this.log('could not release a stream claim', error));
        res.end();
      },
    };
    this.open.set(session.id, stream);
    const closing = opened?.();
    const unwatch = this.watch.watchStream(session.id, { wake: () => void this.pump(session.id, stream, res), end: stream.close });
    const keepAlive = setInterval(() => void this.keepAlive(session.id, stream, res), keepAliveMs);
    // The open connection, not its timer, is what keeps a replica busy: a stream never holds shutdown.
    keepAlive.unref();
    res.on('close', stream.close);
    await this.pump(session.id, stream, res);
  }

  /**
   * Resumes a POST's SSE answer after its event `afterSeq`: a different
   * stream from the standalone one, so its claim does not stand in the way.
   * A stream whose priming event is no longer kept (or never was) replays
   * what is left of it and closes at once.
   */
  async resume(res: Response, session: McpSession, stream: number, afterSeq: number): Promise<void> {
    if (!this.reserve(res)) return;
    let openedAt: number | null;
    try {
      openedAt = await this.store.postStreamOpenedAt(session.id, stream);
    } catch (error) {
      this.reserved--;
      throw error;
    }
    const until = openedAt === null ? 0 : openedAt + (this.options.postStreamMs ?? POST_STREAM_MS) + POST_STREAM_GRACE_MS;
    const place = { sessionId: session.id, stream, afterSeq: Math.max(afterSeq, stream), until, keepAliveMs: this.options.keepAliveMs ?? KEEP_ALIVE_MS };
    const resumption: PostStreamResumption = new PostStreamResumption(this.store, place, res, () => {
      this.resumed.delete(resumption);
      this.reserved--;
    }, this.log);
    this.resumed.add(resumption);
    await resumption.start((waker) => this.watch.watchStream(session.id, waker));
  }

  /** Closes every stream (shutdown). */
  closeAll(): void {
    for (const stream of [...this.open.values()]) stream.close();
    for (const resumption of [...this.resumed]) resumption.close();
  }

  /** Takes one of this replica's stream places, or answers 503. */
  private reserve(res: Response): boolean {
    if (this.reserved >= this.options.maxStreams) {
      res.setHeader('Retry-After', '5');
      sendRpcError(res, 503, null, RPC.SERVER_ERROR, 'Service Unavailable: this replica holds as many streams as it may (MCP_MAX_STREAMS_PER_REPLICA)');
      return false;
    }
    this.reserved++;
    return true;
  }

  private async keepAlive(sessionId: string, stream: OpenStream, res: Response): Promise<void> {
    try {
      if (!(await this.store.refreshStream(sessionId, this.options.replica))) return stream.close();
      res.write(': keep-alive\n\n');
    } catch (error) {
      this.log('could not refresh a stream claim', error);
    }
  }

  /** Sends what the log holds after the last event sent; a wake during a pump runs it again. */
  private async pump(sessionId: string, stream: OpenStream, res: Response): Promise<void> {
    if (stream.pumping) return void (stream.again = true);
    stream.pumping = true;
    try {
      do {
        stream.again = false;
        let batch;
        do {
          batch = await this.store.readAfter(sessionId, stream.lastSeq, READ_BATCH, null);
          for (const event of batch) {
            if (res.writableEnded) return;
            res.write(`id: ${event.seq}\nevent: message\ndata: ${event.message}\n\n`);
            stream.lastSeq = event.seq;
          }
        } while (batch.length === READ_BATCH);
      } while (stream.again);
    } catch (error) {
      this.log('could not send stream events', error);
    } finally {
      stream.pumping = false;
    }
  }
}
