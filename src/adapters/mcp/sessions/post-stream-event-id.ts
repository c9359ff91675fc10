/**
 * SSE event ids in a session's log. The standalone GET stream's are the
 * per-session seq (`12`). A POST stream's carry the same seq after the
 * stream's own name, its priming event's seq (`7-12`): a Last-Event-ID then
 * says which stream to resume even once that event has aged out of the log.
 */
export type LastEventId = { stream: null; seq: number } | { stream: number; seq: number };

/** Digits within a safe integer. */
const STANDALONE = /^(\d{1,15})$/;
const POST_STREAM = /^(\d{1,15})-(\d{1,15})$/;

export function postStreamEventId(stream: number, seq: number): string {
  return `${stream}-${seq}`;
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
  return seq >= stream ? { stream, seq } : null;
}
