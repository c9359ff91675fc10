import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';

/**
 * How one contact with an upstream ends early: its signal, and the first
 * refusal (address, size, pages, tools) that stopped it, which is the news a
 * caller rethrows in place of the SDK's "aborted" or "timed out".
 */
export class ContactStop {
  private readonly controller = new AbortController();
  private first: UpstreamRefusal | null = null;

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get refusal(): UpstreamRefusal | null {
    return this.first;
  }

  abort(reason?: unknown): void {
    this.controller.abort(reason);
  }

  stopWith(refusal: UpstreamRefusal): void {
    this.first ??= refusal;
    this.controller.abort(refusal);
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
