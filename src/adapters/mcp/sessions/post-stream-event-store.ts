import { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import { newPostStreamName, postStreamEventId } from './post-stream-event-id';

/** Where a POST stream's events go (PostgresSessionEvents). */
export interface PostStreamLog {
  /** False when the session has ended (nothing is written). */
  appendToPostStream(sessionId: string, stream: number, seq: number, message: string, endsStream: boolean): Promise<boolean>;
}

/** Past this many events, or bytes, of one stream kept in memory, it is written out and written through from then on. */
export const BUFFERED_EVENTS = 64;
export const BUFFERED_BYTES = 1024 * 1024;

interface Buffered {
  seq: number;
  message: string;
  ends: boolean;
}

/**
 * The SDK transport's event store for ONE POST's SSE answer in a session.
 * Its ids are named here (`<stream>-<seq>`, post-stream-event-id.ts) and its
 * events kept in memory while the client reads them: a call answered on the
 * connection that asked for it writes nothing to PostgreSQL. They go to the
 * session's log (`spill`) when a client might come back for them: its
 * connection closed before the end, another replica was asked to resume the
 * stream, or the stream grew past the buffer's bounds; every later event is
 * then written before it is sent. The message carrying the last response the
 * POST awaited is marked as the stream's end, and `finished` settles once
 * it is handed over (written, when the stream was spilled), so the caller
 * knows when the call is over even with the client gone.
 */
export class PostStreamEventStore implements EventStore {
  readonly finished: Promise<void>;
  /** The stream's name: the first half of every event id. */
  readonly stream: number;
  private finish: () => void = () => undefined;
  private next: number;
  private buffer: Buffered[] | null = [];
  private bytes = 0;
  private responses = 0;
  // One append at a time: seqs then reach the log in the order the SDK sent the messages in.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly log: PostStreamLog,
    private readonly sessionId: string,
    /** How many JSON-RPC requests the POST carried: as many responses end the stream. */
    private readonly requests: number,
    private readonly warn: (message: string, error?: unknown) => void,
    nowMs: number = Date.now(),
  ) {
    this.finished = new Promise((resolve) => (this.finish = resolve));
    if (requests <= 0) this.finish();
    this.stream = newPostStreamName(nowMs);
    this.next = this.stream;
  }

  /** Whether the stream's events go to the log (it was spilled). */
  get spilled(): boolean {
    return this.buffer === null;
  }

  storeEvent(_streamId: string, message: JSONRPCMessage): Promise<string> {
    const ends = isResponse(message) && ++this.responses === this.requests;
    const event = { seq: this.next++, message: JSON.stringify(message), ends };
    const id = postStreamEventId(this.stream, event.seq);
    if (this.buffer !== null) {
      this.buffer.push(event);
      this.bytes += event.message.length;
      if (ends) this.finish();
      if (this.buffer.length > BUFFERED_EVENTS || this.bytes > BUFFERED_BYTES) void this.spill();
      return Promise.resolve(id);
    }
    const written = this.append(event);
    if (ends) void written.finally(this.finish);
    return written.then(() => id);
  }

  /** Writes what is kept to the log and every later event through it; settles when what was kept is written. */
  spill(): Promise<void> {
    const kept = this.buffer;
    if (kept === null) return this.queue.then(() => undefined);
    this.buffer = null;
    this.bytes = 0;
    for (const event of kept) void this.append(event);
    return this.queue.then(() => undefined);
  }

  replayEventsAfter(): Promise<string> {
    return Promise.reject(new Error('POST streams are resumed by SessionStreams, not by the transport'));
  }

  /** A failed write (the database away) is warned about and the live stream goes on: a resumption misses only that event. */
  private append(event: Buffered): Promise<void> {
    const written = this.queue.then(async () => {
      try {
        await this.log.appendToPostStream(this.sessionId, this.stream, event.seq, event.message, event.ends);
      } catch (error) {
        this.warn('could not store an event of a POST stream', error);
      }
    });
    this.queue = written;
    return written;
  }
}

function isResponse(message: JSONRPCMessage): boolean {
  return 'id' in message && ('result' in message || 'error' in message);
}
