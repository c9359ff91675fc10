import { createParser } from 'eventsource-parser';
import { Agent, fetch as undiciFetch } from 'undici';
import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';
import { withoutSecrets } from '../../../domain/resource/without-secrets';

/** keygate's session with one upstream, and where it lives: what its GET stream needs. */
export interface EventStreamTarget {
  url: string;
  headers: Record<string, string>;
  upstreamSessionId: string;
  protocolVersion: string;
}

export interface EventStreamLimits {
  /** Longest wait for the stream's response headers (MCP_UPSTREAM_TIMEOUT_MS). */
  connectTimeoutMs: number;
  /** Largest message (MCP_UPSTREAM_MAX_BYTES): bytes read without an event ending past it close the stream. */
  maxBytes: number;
}

/** A reconnect waits 1 s, doubling after each failure, up to this. */
const MAX_BACKOFF_MS = 30_000;
/** An event id is echoed in Last-Event-ID; a longer one is not kept. */
const MAX_EVENT_ID_CHARS = 256;

type Outcome = 'ended' | 'failed' | 'gone';

/**
 * One upstream's standalone GET stream within keygate's session with it,
 * read until close(): every message handed to `onMessage` parsed, the
 * connection made through the pinned agent (the address guard), a reconnect
 * after it ends resuming with Last-Event-ID. An upstream without such a
 * stream (405), one that forgot the session (404) or an address the guard
 * refuses ends it for good; a new held session opens a new one. `onLost`
 * hears such an end of a stream that had listened (the upstream forgot the
 * session), not a close() nor an upstream that never had a stream.
 */
export class UpstreamEventStream {
  private readonly stop = new AbortController();
  private lastEventId: string | undefined;
  /** True from the response headers of a connection to its end. */
  private connected = false;
  /** One promise shared by everyone waiting for the next connection, so waiting callers add nothing each. */
  private next: { promise: Promise<boolean>; resolve(listening: boolean): void } | null = null;
  /** Whether a connection was ever open. */
  private listened = false;

  constructor(
    private readonly target: EventStreamTarget,
    private readonly agent: Agent,
    private readonly limits: EventStreamLimits,
    private readonly onMessage: (message: Record<string, unknown>) => void,
    private readonly log: (message: string, error?: unknown) => void,
    private readonly onLost?: () => void,
  ) {
    void this.run();
  }

  get closed(): boolean {
    return this.stop.signal.aborted;
  }

  close(): void {
    this.stop.abort();
    this.settle(false);
  }

  /**
   * Resolves true once the upstream's response headers have come (now, if a
   * connection is open), false if the stream closes first. It can take up to
   * a backoff: callers bound the wait.
   */
  whenListening(): Promise<boolean> {
    if (this.connected) return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    if (this.next === null) {
      let resolve!: (listening: boolean) => void;
      const promise = new Promise<boolean>((r) => (resolve = r));
      this.next = { promise, resolve };
    }
    return this.next.promise;
  }

  /** A connection opened (true) or the stream closed (false): whoever waits is told. */
  private settle(listening: boolean): void {
    this.connected = listening && !this.closed;
    if (!this.connected && !this.closed) return;
    this.next?.resolve(this.connected);
    this.next = null;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.closed) {
      let outcome: Outcome;
      try {
        outcome = await this.once();
      } catch (error) {
        outcome = (error as { cause?: unknown }).cause instanceof UpstreamRefusal ? 'gone' : 'failed';
        // The message only, the header values taken out: the transport quotes a value it refuses.
        const reason = withoutSecrets(String((error as Error)?.message ?? error), Object.values(this.target.headers));
        if (!this.closed) this.log(`upstream event stream of ${new URL(this.target.url).host} failed: ${reason}`);
      }
      if (outcome === 'gone') {
        const lost = this.listened && !this.closed;
        this.close();
        if (lost) this.onLost?.();
        return;
      }
      failures = outcome === 'ended' ? 0 : failures + 1;
      await this.wait(Math.min(1000 * 2 ** failures, MAX_BACKOFF_MS));
    }
  }

  private async once(): Promise<Outcome> {
    const reading = new AbortController();
    const signal = AbortSignal.any([this.stop.signal, reading.signal]);
    const timer = setTimeout(() => reading.abort(), this.limits.connectTimeoutMs);
    let response;
    try {
      response = await undiciFetch(this.target.url, {
        method: 'GET',
        signal,
        dispatcher: this.agent,
        headers: {
          ...this.target.headers,
          accept: 'text/event-stream',
          'mcp-session-id': this.target.upstreamSessionId,
          'mcp-protocol-version': this.target.protocolVersion,
          ...(this.lastEventId !== undefined && { 'last-event-id': this.lastEventId }),
        },
      });
    } finally {
      clearTimeout(timer);
    }
    if (response.status === 404 || response.status === 405) {
      await response.body?.cancel();
      return 'gone';
    }
    if (!response.ok || !(response.headers.get('content-type') ?? '').includes('text/event-stream') || response.body === null) {
      await response.body?.cancel();
      return 'failed';
    }
    this.settle(true);
    this.listened = true;
    let pending = 0;
    const parser = createParser({
      onEvent: (event) => {
        pending = 0;
        if (event.id !== undefined && event.id.length <= MAX_EVENT_ID_CHARS) this.lastEventId = event.id;
        if (event.event !== undefined && event.event !== 'message') return;
        let message: unknown;
        try {
          message = JSON.parse(event.data);
        } catch {
          return;
        }
        if (message !== null && typeof message === 'object' && !Array.isArray(message)) this.onMessage(message as Record<string, unknown>);
      },
    });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        pending += chunk.byteLength;
        if (pending > this.limits.maxBytes) {
          this.log(
            `upstream event stream of ${new URL(this.target.url).host} sent a message of more than ${this.limits.maxBytes} bytes (MCP_UPSTREAM_MAX_BYTES)`,
          );
          reading.abort();
          return 'failed';
        }
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
    } catch (error) {
      if (this.closed) return 'ended';
      throw error;
    } finally {
      this.connected = false;
    }
    return 'ended';
  }

  private wait(ms: number): Promise<void> {
    const stop = this.stop.signal;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stop.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      stop.addEventListener('abort', done);
    });
  }
}
