import { Response } from 'express';
import { McpSession } from '../../../domain/mcp-session';
import { RPC, sendRpcError } from '../json-rpc';
import { EVENT_STREAM_HEADERS, PostStreamResumption, PostStreamSource } from './post-stream-resumption';
import { postStreamOpenedAt } from './post-stream-event-id';
import { StreamPlace, StreamPlaces } from './stream-places';

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
  /** Open streams of one key on this replica, below maxStreams; past it that key's GET gets 429. */
  maxStreamsPerKey: number;
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
  close: () => void;
}

/**
 * The GET streams this replica holds: standalone ones, one per session across
 * all replicas (the claim in PostgreSQL), each fed from the session's event
 * log when woken, with a keep-alive that also notices a session ended or a
 * key revoked while no notification could arrive; and resumptions of POST
 * streams (post-stream-resumption.ts), which claim nothing, one per POST
 * answer on this replica. Both count against the key's share and the
 * replica's bound (stream-places.ts).
 */
export class SessionStreams {
  private readonly open = new Map<string, OpenStream>();
  /** By session and POST stream; a resumption not yet started is a bare close(). */
  private readonly resumed = new Map<string, { close(): void }>();
  private readonly places: StreamPlaces;

  constructor(
    private readonly store: StreamStore,
    private readonly watch: StreamWatch,
    private readonly options: SessionStreamOptions,
    private readonly log: (message: string, error?: unknown) => void = () => undefined,
    /** Shared with the 2026 listen streams (modern/listen-streams.ts), which count against the same bounds. */
    places?: StreamPlaces,
  ) {
    this.places = places ?? new StreamPlaces({ perReplica: options.maxStreams, perKey: options.maxStreamsPerKey });
  }

  get size(): number {
    return this.places.size;
  }

  /**
   * `lastEventId`: replay the events after it; null: only what comes from now on.
   * `opened` runs once the stream is claimed; what it returns runs when the stream closes.
   */
  async serve(res: Response, session: McpSession, lastEventId: number | null, opened?: () => () => void): Promise<void> {
    const place = this.take(res, session.keyId);
    if (!place) return;
    const keepAliveMs = this.options.keepAliveMs ?? KEEP_ALIVE_MS;
    let head: number | null;
    try {
      head = await this.store.claimStream(session.id, this.options.replica, keepAliveMs * STALE_KEEP_ALIVES);
    } catch (error) {
      place.release();
      throw error;
    }
    if (head === null) {
      place.release();
      return sendRpcError(res, 409, null, RPC.SERVER_ERROR, 'Conflict: this session already has an open stream');
    }
    res.writeHead(200, EVENT_STREAM_HEADERS);
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
        place.release();
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
   * A stream that cannot still be running (its deadline has passed, or its
   * name is unknown) replays what is left of it and closes at once. A second resumption of the same
   * answer on this replica closes the first: a client reconnecting before its
   * old connection is seen closed neither waits for it nor spends its key's
   * share twice.
   */
  async resume(res: Response, session: McpSession, stream: number, afterSeq: number): Promise<void> {
    const name = `${session.id} ${stream}`;
    this.resumed.get(name)?.close();
    const place = this.take(res, session.keyId);
    if (!place) return;
    let replaced = false;
    // Its place is free at once, for the resumption replacing it.
    const starting = { close: () => void ((replaced = true), place.release()) };
    this.resumed.set(name, starting);
    let openedAt: number | null;
    try {
      openedAt = await this.openedAt(session.id, stream);
    } catch (error) {
      place.release();
      throw error;
    } finally {
      this.forget(name, starting);
    }
    if (replaced) {
      res.writeHead(200, EVENT_STREAM_HEADERS);
      return void res.end();
    }
    const until = openedAt === null ? 0 : openedAt + (this.options.postStreamMs ?? POST_STREAM_MS) + POST_STREAM_GRACE_MS;
    const where = {
      sessionId: session.id,
      stream,
      afterSeq: Math.max(afterSeq, stream),
      until,
      keepAliveMs: this.options.keepAliveMs ?? KEEP_ALIVE_MS,
    };
    const resumption: PostStreamResumption = new PostStreamResumption(
      this.store,
      where,
      res,
      () => {
        this.forget(name, resumption);
        place.release();
      },
      this.log,
    );
    this.resumed.set(name, resumption);
    await resumption.start((waker) => this.watch.watchStream(session.id, waker));
  }

  /**
   * When a POST stream opened: its name says, for one named by its replica
   * (a time ahead of this clock by more than the leeway names no stream);
   * the log, for one named by an older keygate.
   */
  private async openedAt(sessionId: string, stream: number): Promise<number | null> {
    const named = postStreamOpenedAt(stream);
    if (named === null) return this.store.postStreamOpenedAt(sessionId, stream);
    return named > Date.now() + POST_STREAM_GRACE_MS ? null : named;
  }

  /** Closes every stream (shutdown). */
  closeAll(): void {
    for (const stream of [...this.open.values()]) stream.close();
    for (const resumption of [...this.resumed.values()]) resumption.close();
  }

  /** Takes a stream place for the key, or answers 429 (past the key's share) or 503 (the replica is full). */
  private take(res: Response, keyId: string): StreamPlace | null {
    const place = this.places.take(keyId);
    if (typeof place === 'object') return place;
    res.setHeader('Retry-After', '5');
    if (place === 'key') {
      sendRpcError(
        res,
        429,
        null,
        RPC.SERVER_ERROR,
        'Too Many Requests: this key holds as many streams on this replica as it may (MCP_MAX_STREAMS_PER_KEY)',
      );
    } else {
      sendRpcError(
        res,
        503,
        null,
        RPC.SERVER_ERROR,
        'Service Unavailable: this replica holds as many streams as it may (MCP_MAX_STREAMS_PER_REPLICA)',
      );
    }
    return null;
  }

  private forget(name: string, entry: { close(): void }): void {
    if (this.resumed.get(name) === entry) this.resumed.delete(name);
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
