/**
 * SSE event ids in a session's log. The standalone GET stream's are the
 * per-session seq (`12`). A POST stream's are `<stream>-<seq>`: the stream's
 * name, then the event's place in it, counted from the name (the priming
 * event is `<stream>-<stream>`), so a Last-Event-ID says which stream to
 * resume even once its events have aged out of the log.
 *
 * A stream's name is taken by the replica that answers the POST, without
 * asking PostgreSQL (its events are only written when a client might come
 * back for them, post-stream-event-store.ts): the time it opened in ms, times
 * a thousand, plus a counter. Names from before that (a session seq, below
 * 10^15) are still read, and their opening time looked up.
 */
export type LastEventId = { stream: null; seq: number } | { stream: number; seq: number };

/** Digits within a safe integer. */
const STANDALONE = /^(\d{1,15})$/;
const POST_STREAM = /^(\d{1,16})-(\d{1,16})$/;
/** Stream names at or above this carry their opening time. */
const TIMED = 1e15;
const PER_MS = 1000;

export function postStreamEventId(stream: number, seq: number): string {
  return `${stream}-${seq}`;
}

let counter = Math.floor(Math.random() * PER_MS);

/** A new POST stream's name: its opening time and a counter, unique within a session unless two replicas open one in the same ms with the same count. */
export function newPostStreamName(nowMs: number): number {
  counter = (counter + 1) % PER_MS;
  return nowMs * PER_MS + counter;
}

/** When a stream named by newPostStreamName opened (epoch ms); null for an older name, whose time is in the log. */
export function postStreamOpenedAt(stream: number): number | null {
  return stream >= TIMED ? Math.floor(stream / PER_MS) : null;
}

/** Null for a malformed value, or a POST stream event said to come before its stream began. */
export function parseLastEventId(value: string | string[] | undefined): LastEventId | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const standalone = STANDALONE.exec(text);
  if (standalone) return { stream: null, seq: Number(standalone[1]) };
  const post = POST_STREAM.exec(text);
  if (!post) return null;
  const stream = Number(post[1]);
  const seq = Number(post[2]);
  return Number.isSafeInteger(seq) && seq >= stream ? { stream, seq } : null;
}
