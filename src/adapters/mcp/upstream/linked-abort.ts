import { AbortSource } from '../../../application/ports/abort-source';
import { LazyAbort } from './lazy-abort';

/**
 * An abort that aborts when any of `sources` does (with its reason), or with
 * a TimeoutError after `timeoutMs`; `dispose()` lets go of the sources and
 * the timer.
 *
 * Not AbortSignal.any / AbortSignal.timeout: on Node 20 such a signal with an
 * abort listener still attached is held by a process-wide set until its timer
 * fires, even once aborted, and the SDK client never removes the listener it
 * adds per request. Every upstream contact (its Client, transport, the relayed
 * call's SDK server and transport) then stayed in memory for the whole timeout,
 * five minutes for a relayed call: under load the heap filled and garbage
 * collection took the CPU. `source` is the abort itself, for keygate's own
 * code and undici's dispatcher; `signal` an AbortSignal made on first use
 * (lazy-abort.ts).
 */
export class LinkedAbort {
  private readonly line = new LazyAbort();
  private readonly unlinks: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(sources: readonly AbortSource[], timeoutMs?: number) {
    const aborted = sources.find((s) => s.aborted);
    if (aborted) {
      this.line.abort(aborted.reason);
      return;
    }
    for (const source of sources) {
      const onAbort = () => this.abort(source.reason);
      source.addEventListener('abort', onAbort, { once: true });
      this.unlinks.push(() => source.removeEventListener('abort', onAbort));
    }
    if (timeoutMs !== undefined) {
      this.timer = setTimeout(() => this.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), timeoutMs);
      // A timer alone never keeps the process up, as AbortSignal.timeout's does not.
      this.timer.unref();
    }
  }

  get source(): AbortSource {
    return this.line;
  }

  get signal(): AbortSignal {
    return this.line.signal;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.unlinks.splice(0).forEach((unlink) => unlink());
  }

  private abort(reason: unknown): void {
    this.dispose();
    this.line.abort(reason);
  }
}
