/**
 * What keygate's own code reads of an abort: an AbortSignal has it, and so
 * does the adapters' LazyAbort, which makes no AbortSignal until one is asked for.
 */
export interface AbortSource {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
