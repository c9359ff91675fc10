import { AbortSource } from '../../../application/ports/abort-source';
import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';
import { LazyAbort } from './lazy-abort';

/**
 * The reason every contact ends with at close, made once. An answer whose
 * tail is still being drained is destroyed with it, and Node's stream destroy
 * reads the reason's stack: a new DOMException a close, and its stack
 * formatted, took about 75 µs before a 2025 call was answered, for an error
 * nothing reads (this one's stack is formatted once). Its name and message
 * are the default abort's.
 */
const CLOSED = new DOMException('This operation was aborted', 'AbortError');

/**
 * How one contact with an upstream ends early: its signal, and the first
 * refusal (address, size, pages, tools) that stopped it, which is the news a
 * caller rethrows in place of the SDK's "aborted" or "timed out". `source`
 * is the stop itself; `signal`, for the SDK, is made on first use (lazy-abort.ts).
 */
export class ContactStop {
  private readonly line = new LazyAbort();
  private first: UpstreamRefusal | null = null;

  get source(): AbortSource {
    return this.line;
  }

  get signal(): AbortSignal {
    return this.line.signal;
  }

  get refusal(): UpstreamRefusal | null {
    return this.first;
  }

  abort(reason?: unknown): void {
    this.line.abort(reason);
  }

  /** The contact is over: whatever is still reading from it stops (with the shared CLOSED reason). */
  close(): void {
    this.line.abort(CLOSED);
  }

  stopWith(refusal: UpstreamRefusal): void {
    this.first ??= refusal;
    this.line.abort(refusal);
  }

  /** A refusal of `method` that also stops the contact; the caller throws it. */
  refusing(method: string): (shown: string, detail: string) => UpstreamRefusal {
    return (shown, detail) => {
      const refusal = new UpstreamRefusal(`upstream ${method} ${shown}`, detail);
      this.stopWith(refusal);
      return refusal;
    };
  }
}
