import { AbortSource } from '../../../application/ports/abort-source';

/**
 * An abort that makes an AbortSignal only when something asks for `signal`
 * (the SDK, fetch, AbortSignal.any); keygate's own code and undici's
 * dispatcher (which takes any EventTarget-like) read it directly.
 *
 * Node makes every AbortSignal with Object.setPrototypeOf, and V8 keeps an
 * object whose prototype was changed through young-generation collections:
 * each signal, and whatever its listeners reach (the contact, the relay, the
 * call), was promoted to the old generation. An upstream tools/call made up
 * to five of them, and the old generation's growth set off the major
 * collections that were most of its tail latency at a steady rate.
 */
export class LazyAbort implements AbortSource {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> | undefined;
  private controller: AbortController | undefined;

  /** As an AbortSignal's: listeners run once, on abort, in the order added; none is kept after. */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index !== -1) this.listeners!.splice(index, 1);
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        // As an EventTarget reports a throwing listener: an uncaught error, after the other listeners ran.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    this.controller?.abort(reason);
  }

  /** An AbortSignal that aborts with this, with its reason; made on first use. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }
}
