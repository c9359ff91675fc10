import type { EventStore } from '@modelcontextprotocol/server';

type Message = Parameters<EventStore['storeEvent']>[1];

/** Events one session keeps for replay; older ones are dropped, so a resumption that far back gets only what is left. */
const MAX_EVENTS = 1000;

interface StoredEvent {
  id: string;
  streamId: string;
  message: Message;
}

/**
 * One session's SSE events, in memory, so that a client that lost a stream
 * (or was told to poll: SEP-1699) resumes it with `Last-Event-ID`. Event ids
 * are `<stream id>.<sequence>`, so the stream of an id is read from the id.
 */
export class FixtureEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  private sequence = 0;

  async storeEvent(streamId: string, message: Message): Promise<string> {
    const id = `${streamId}.${++this.sequence}`;
    this.events.push({ id, streamId, message });
    if (this.events.length > MAX_EVENTS) this.events.shift();
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.find((event) => event.id === eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: Message) => Promise<void> }): Promise<string> {
    const from = this.events.findIndex((event) => event.id === lastEventId);
    if (from < 0) throw new Error('unknown event id');
    const { streamId } = this.events[from];
    for (const event of this.events.slice(from + 1)) {
      // Priming events (SEP-1699) are stored empty: they carry an id, nothing to replay.
      if (event.streamId === streamId && Object.keys(event.message).length > 0) await send(event.id, event.message);
    }
    return streamId;
  }
}
