import http from 'node:http';
import { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { LazyAbort } from '../../../../../src/adapters/mcp/upstream/lazy-abort';
import { LinkedAbort } from '../../../../../src/adapters/mcp/upstream/linked-abort';
import { ContactStop } from '../../../../../src/adapters/mcp/upstream/contact-stop';
import { UpstreamRefusal } from '../../../../../src/application/ports/upstream-refusal';

/** Counts the AbortControllers made while `run` runs (each makes its AbortSignal on first read). */
function controllersMadeBy(run: () => void): number {
  const Original = globalThis.AbortController;
  let made = 0;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      made += 1;
    }
  };
  try {
    run();
  } finally {
    globalThis.AbortController = Original;
  }
  return made;
}

describe('LazyAbort', () => {
  it('runs each listener once, on abort, with the reason already set; a removed one never', () => {
    const abort = new LazyAbort();
    const seen: unknown[] = [];
    const kept = () => seen.push(['kept', abort.aborted, abort.reason]);
    const removed = () => seen.push('removed');
    abort.addEventListener('abort', kept);
    abort.addEventListener('abort', removed);
    abort.removeEventListener('abort', removed);
    const reason = new Error('stop');
    abort.abort(reason);
    abort.abort(new Error('again'));
    abort.addEventListener('abort', () => seen.push('late'));
    expect(seen).toEqual([['kept', true, reason]]);
    expect(() => abort.throwIfAborted()).toThrow(reason);
  });

  it('aborts with an AbortError DOMException when given no reason, as AbortController does', () => {
    const abort = new LazyAbort();
    expect(() => abort.throwIfAborted()).not.toThrow();
    abort.abort();
    expect((abort.reason as DOMException).name).toBe('AbortError');
  });

  it('makes its AbortSignal only when asked, which then follows it either way round', () => {
    const before = new LazyAbort();
    const after = new LazyAbort();
    let signals: AbortSignal[] = [];
    expect(
      controllersMadeBy(() => {
        before.addEventListener('abort', () => undefined);
        before.abort(new Error('x'));
      }),
    ).toBe(0);
    expect(controllersMadeBy(() => (signals = [before.signal, after.signal]))).toBe(2);
    expect(signals[0].aborted && signals[0].reason).toEqual(new Error('x'));
    const heard: unknown[] = [];
    signals[1].addEventListener('abort', () => heard.push(signals[1].reason));
    after.abort(new Error('y'));
    expect(heard).toEqual([new Error('y')]);
    expect(after.signal).toBe(signals[1]);
  });

  it('runs the other listeners when one throws, and reports its error as uncaught after them', () => {
    const abort = new LazyAbort();
    const ran: string[] = [];
    const reported: Array<() => void> = [];
    const queue = jest.spyOn(globalThis, 'queueMicrotask').mockImplementation((task) => void reported.push(task));
    try {
      abort.addEventListener('abort', () => {
        throw new Error('listener failed');
      });
      abort.addEventListener('abort', () => ran.push('second'));
      abort.abort();
    } finally {
      queue.mockRestore();
    }
    expect(ran).toEqual(['second']);
    expect(reported).toHaveLength(1);
    expect(() => reported[0]()).toThrow('listener failed');
  });

  it('cancels an undici request it is given as the signal, with its reason', async () => {
    const server = http.createServer(() => undefined); // never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent();
    try {
      const abort = new LazyAbort();
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const pending = agent.request({ origin, path: '/', method: 'POST', body: '{}', signal: abort });
      setTimeout(() => abort.abort(new Error('cancelled by the client')), 20);
      await expect(pending).rejects.toThrow('cancelled by the client');
    } finally {
      await agent.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('LinkedAbort and ContactStop over LazyAbort', () => {
  it('link, stop and time out without making an AbortSignal until the SDK asks for one', () => {
    jest.useFakeTimers();
    try {
      let linked!: LinkedAbort;
      const stop = new ContactStop();
      expect(
        controllersMadeBy(() => {
          const relay = new LazyAbort();
          const deadline = new LinkedAbort([stop.source], 1000);
          linked = new LinkedAbort([deadline.source, relay]);
          relay.abort(new Error('cancelled'));
          deadline.dispose();
        }),
      ).toBe(0);
      expect(linked.source.aborted && linked.source.reason).toEqual(new Error('cancelled'));
      expect(linked.signal.reason).toEqual(new Error('cancelled'));
      const timed = new LinkedAbort([stop.source], 1000);
      jest.advanceTimersByTime(1000);
      expect((timed.source.reason as DOMException).name).toBe('TimeoutError');
      const refusal = new UpstreamRefusal('upstream tools/list sent too many pages', 'detail');
      stop.stopWith(refusal);
      expect([stop.refusal, stop.source.reason, stop.signal.reason]).toEqual([refusal, refusal, refusal]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('closes a contact with one AbortError made once, which still stops an answer being read through a link', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {}\n\n'); // the answer's tail never comes
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent();
    try {
      const stop = new ContactStop();
      const deadline = new LinkedAbort([stop.source], 60_000);
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const answer = await agent.request({ origin, path: '/', method: 'POST', body: '{}', signal: deadline.source });
      const reading = answer.body.text();
      stop.close();
      await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
      const other = new ContactStop();
      other.close();
      expect(other.source.reason).toBe(stop.source.reason);
      expect(stop.source.reason).toMatchObject({ name: 'AbortError', message: 'This operation was aborted' });
      deadline.dispose();
    } finally {
      await agent.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
