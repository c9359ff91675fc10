import { Response } from 'express';
import { postStreamEventId } from './post-stream-event-id';

/** What a resumed POST stream reads (PostgresSessionEvents). */
export interface PostStreamSource {
  readAfter(
    sessionId: string,
    afterSeq: number,
    limit: number,
    stream: number | null,
  ): Promise<{ seq: number; message: string; endsStream: boolean }[]>;
  /** False when the session ended or its key is no longer usable. */
  touchSession(sessionId: string): Promise<boolean>;
  /** Asks whichever replica holds the stream in memory to write it to the log. */
  wantPostStream(sessionId: string, stream: number): Promise<void>;
}

export interface PostStreamPlace {
  sessionId: string;
  /** The stream's name (post-stream-event-id.ts). */
  stream: number;
  /** The last event the client saw. */
  afterSeq: number;
  /** When nothing more can come (epoch ms): the call's deadline has passed, or the stream is no longer known. */
  until: number;
  keepAliveMs: number;
}

const READ_BATCH = 100;

/** The head of every GET stream, standalone or resumed. */
export const EVENT_STREAM_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/**
 * One GET that resumes a POST's SSE answer (Last-Event-ID naming one of its
 * events): the stream's events after it, then those still to come (woken by
 * the session's NOTIFY), until the event carrying the POST's last response.
 * Bounded: it closes at `until` even if the call never finished (its replica
 * died), when the session ends, or when its key stops being usable.
 */
export class PostStreamResumption {
  private lastSeq: number;
  private pumping = false;
  private again = false;
  private closed = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private unwatch: () => void = () => undefined;

  constructor(
    private readonly source: PostStreamSource,
    private readonly place: PostStreamPlace,
    private readonly res: Response,
    private readonly onClose: () => void,
    private readonly log: (message: string, error?: unknown) => void,
  ) {
    this.lastSeq = place.afterSeq;
  }

  /** `watch` registers the stream for the session's wake-ups and end; returns its unregistering. */
  async start(watch: (waker: { wake(): void; end(): void }) => () => void): Promise<void> {
    this.res.writeHead(200, EVENT_STREAM_HEADERS);
    this.res.flushHeaders();
    this.res.on('close', () => this.close());
    this.unwatch = watch({ wake: () => void this.pump(), end: () => this.close() });
    const keepAlive = setInterval(() => void this.keepAlive(), this.place.keepAliveMs);
    // The open connection, not a timer, is what keeps a replica busy.
    keepAlive.unref();
    this.timers.push(keepAlive);
    await this.pump();
    if (this.closed) return;
    // Nothing logged yet: the replica answering the POST may hold the rest in memory, its client still connected as far as it knows.
    if (this.lastSeq === this.place.afterSeq) {
      this.source
        .wantPostStream(this.place.sessionId, this.place.stream)
        .catch((error) => this.log('could not ask for a POST stream', error));
    }
    const left = this.place.until - Date.now();
    if (left <= 0) return this.close();
    const deadline = setTimeout(() => void this.pump().finally(() => this.close()), left);
    deadline.unref();
    this.timers.push(deadline);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.timers.forEach(clearTimeout);
    this.unwatch();
    this.onClose();
    this.res.end();
  }

  private async keepAlive(): Promise<void> {
    try {
      if (!(await this.source.touchSession(this.place.sessionId))) return this.close();
      if (!this.closed) this.res.write(': keep-alive\n\n');
    } catch (error) {
      this.log('could not check the session of a resumed stream', error);
    }
  }

  /** Sends what the log holds after the last event sent; a wake during a pump runs it again. */
  private async pump(): Promise<void> {
    if (this.pumping) return void (this.again = true);
    this.pumping = true;
    const { sessionId, stream } = this.place;
    try {
      do {
        this.again = false;
        let batch;
        do {
          batch = await this.source.readAfter(sessionId, this.lastSeq, READ_BATCH, stream);
          for (const event of batch) {
            if (this.closed || this.res.writableEnded) return;
            this.res.write(`id: ${postStreamEventId(stream, event.seq)}\nevent: message\ndata: ${event.message}\n\n`);
            this.lastSeq = event.seq;
            // The POST's last response is out: nothing more belongs to this stream.
            if (event.endsStream) return this.close();
          }
        } while (batch.length === READ_BATCH);
      } while (this.again);
    } catch (error) {
      this.log('could not send resumed stream events', error);
    } finally {
      this.pumping = false;
    }
  }
}
