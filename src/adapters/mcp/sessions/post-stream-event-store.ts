import { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import { postStreamEventId } from './post-stream-event-id';

/** Where a POST stream's events go (PostgresSessionEvents). */
export interface PostStreamLog {
  appendToPostStream(sessionId: string, stream: number | null, message: string, endsStream: boolean): Promise<number | null>;
}

/**
 * The SDK transport's event store for ONE POST's SSE answer in a session:
 * the priming event opens the stream in the session's log, every later
 * message is appended under it, and the message carrying the last response
 * the POST awaited is marked as the stream's end. `finished` settles then,
 * so the caller knows when the call is over even with the client gone.
 * Replays are not asked of it: GETs are served by SessionStreams, on any
 * replica, from the same log.
 */
export class PostStreamEventStore implements EventStore {
  readonly finished: Promise<void>;
  private finish: () => void = () => undefined;
  private stream: number | null = null;
  private lastId = '0-0';
  private responses = 0;
  // One append at a time: seqs then follow the order the SDK sent the messages in.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly log: PostStreamLog,
    private readonly sessionId: string,
    /** How many JSON-RPC requests the POST carried: as many responses end the stream. */
    private readonly requests: number,
    private readonly warn: (message: string, error?: unknown) => void,
  ) {
    this.finished = new Promise((resolve) => (this.finish = resolve));
    if (requests <= 0) this.finish();
  }

  storeEvent(_streamId: string, message: JSONRPCMessage): Promise<string> {
    const ends = isResponse(message) && ++this.responses === this.requests;
    const stored = this.queue
      .then(() => this.append(message, ends))
      .finally(() => {
        if (ends) this.finish();
      });
    this.queue = stored;
    return stored;
  }

  replayEventsAfter(): Promise<string> {
    return Promise.reject(new Error('POST streams are resumed by SessionStreams, not by the transport'));
  }

  /**
   * A failed write (the session ended, the database away) keeps the live
   * stream going: the event gets the last stored id, so a resumption from it
   * misses only what could not be stored.
   */
  private async append(message: JSONRPCMessage, ends: boolean): Promise<string> {
    try {
      // Until one is stored (the priming event, unless that failed), the next one opens the stream.
      const seq = await this.log.appendToPostStream(this.sessionId, this.stream, JSON.stringify(message), ends);
      if (seq !== null) {
        this.stream ??= seq;
        this.lastId = postStreamEventId(this.stream, seq);
      }
    } catch (error) {
      this.warn('could not store an event of a POST stream', error);
    }
    return this.lastId;
  }
}

function isResponse(message: JSONRPCMessage): boolean {
  return 'id' in message && ('result' in message || 'error' in message);
}
