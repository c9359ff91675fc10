import { isObject } from './direct-upstream-post';

/** What the stream read so far decides: the response to read here, or a hand-over to the SDK client; undefined while undecided. */
export type SseVerdict = { kind: 'response'; message: Record<string, unknown> } | { kind: 'handover' } | undefined;

const LF = 0x0a;
const CR = 0x0d;
const FIELDS: ReadonlySet<string> = new Set(['data', 'event', 'id', 'retry']);

/**
 * Reads an SSE answer to one POSTed request as it arrives, and says as soon
 * as it can whether the answer is one this side may read itself: priming
 * events only (empty data, maybe an id or retry), then one `message` event
 * holding a JSON-RPC response for `id`, and nothing after it in what was
 * read. Anything else (a notification or request from the upstream, which
 * may be waiting for its answer; a response for another id; comments, CR
 * line ends, a byte-order mark, an unknown field, bad UTF-8) is a hand-over:
 * the SDK client reads the whole answer as its own. Events are split on
 * bytes (LF never occurs inside a UTF-8 sequence), so a chunk may end anywhere.
 */
export class SseAnswerReader {
  private buffered: Buffer = Buffer.alloc(0);
  /** Where the event being read starts in `buffered`. */
  private start = 0;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  constructor(private readonly id: number) {}

  feed(chunk: Uint8Array): SseVerdict {
    if (chunk.includes(CR)) return { kind: 'handover' };
    const from = Math.max(this.buffered.length - 1, this.start);
    this.buffered = this.buffered.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buffered, chunk]);
    if (this.buffered.length >= 3 && this.buffered[0] === 0xef && this.buffered[1] === 0xbb && this.buffered[2] === 0xbf)
      return { kind: 'handover' };
    for (let end = this.blankLineFrom(from); end !== -1; end = this.blankLineFrom(this.start)) {
      const verdict = this.event(this.buffered.subarray(this.start, end));
      this.start = end + 2;
      if (verdict === undefined) continue;
      // Anything the upstream sent after its response is the SDK client's to read.
      return verdict.kind === 'response' && this.start < this.buffered.length ? { kind: 'handover' } : verdict;
    }
    return undefined;
  }

  /** Where the next event ends (its LF LF) at or after `from`, or -1. */
  private blankLineFrom(from: number): number {
    for (let at = this.buffered.indexOf(LF, from); at !== -1; at = this.buffered.indexOf(LF, at + 1)) {
      if (at + 1 >= this.buffered.length) return -1;
      if (this.buffered[at + 1] === LF && at >= this.start) return at;
    }
    return -1;
  }

  /** One complete event: undefined for a priming event, else the verdict on it. */
  private event(bytes: Uint8Array): SseVerdict {
    let text: string;
    try {
      text = this.decoder.decode(bytes);
    } catch {
      return { kind: 'handover' };
    }
    const data: string[] = [];
    let type: string | undefined;
    for (const line of text.split('\n')) {
      const colon = line.indexOf(':');
      if (colon === 0) return { kind: 'handover' };
      const field = colon === -1 ? line : line.slice(0, colon);
      const raw = colon === -1 ? '' : line.slice(colon + 1);
      const value = raw.startsWith(' ') ? raw.slice(1) : raw;
      if (!FIELDS.has(field)) return { kind: 'handover' };
      if (field === 'data') data.push(value);
      else if (field === 'event') type = value;
      else if (field === 'id' && value.includes('\0')) return { kind: 'handover' };
      else if (field === 'retry' && !/^\d+$/.test(value)) return { kind: 'handover' };
    }
    const payload = data.join('\n');
    if (type !== undefined && type !== 'message') return { kind: 'handover' };
    if (payload === '') return undefined;
    let message: unknown;
    try {
      message = JSON.parse(payload);
    } catch {
      return { kind: 'handover' };
    }
    if (!isObject(message) || 'method' in message || message.id !== this.id) return { kind: 'handover' };
    return { kind: 'response', message };
  }
}
