import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { LinkedAbort } from '../../../../../src/adapters/mcp/upstream/linked-abort';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Whether what `hold` captured is still reachable after a full collection. */
async function stillHeld(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return ref.deref() !== undefined;
}

describe('LinkedAbort', () => {
  afterEach(() => jest.useRealTimers());

  it('aborts with the reason of whichever source aborts first', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = new LinkedAbort([a.signal, b.signal]);
    b.abort(new Error('b'));
    a.abort(new Error('a'));
    expect(linked.signal.reason).toEqual(new Error('b'));
  });

  it('starts aborted when a source already is', () => {
    const a = new AbortController();
    a.abort(new Error('early'));
    expect(new LinkedAbort([a.signal], 10).signal.reason).toEqual(new Error('early'));
  });

  it('aborts with a TimeoutError after its time, and not once disposed', () => {
    jest.useFakeTimers();
    const timed = new LinkedAbort([], 1000);
    const disposed = new LinkedAbort([], 1000);
    disposed.dispose();
    jest.advanceTimersByTime(999);
    expect(timed.signal.aborted).toBe(false);
    jest.advanceTimersByTime(1);
    expect((timed.signal.reason as DOMException).name).toBe('TimeoutError');
    expect(disposed.signal.aborted).toBe(false);
  });

  it('no longer follows its sources once disposed', () => {
    const source = new AbortController();
    const linked = new LinkedAbort([source.signal]);
    linked.dispose();
    source.abort();
    expect(linked.signal.aborted).toBe(false);
  });

  // The SDK client adds an abort listener per request and never removes it.
  it('leaves what a listener left on its signal collectable, once aborted, though a source lives on', async () => {
    const session = new AbortController();
    const stop = new AbortController();
    let ref!: WeakRef<object>;
    (() => {
      const linked = new LinkedAbort([stop.signal, session.signal], 300_000);
      const contact = { big: new Array(1000).fill('x') };
      ref = new WeakRef(contact);
      linked.signal.addEventListener('abort', () => contact.big.length);
      stop.abort();
    })();
    expect(await stillHeld(ref)).toBe(false);
    expect(session.signal.aborted).toBe(false);
  });
});
