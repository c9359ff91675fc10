import { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BUFFERED_EVENTS, PostStreamEventStore, PostStreamLog } from '../../../../src/adapters/mcp/sessions/post-stream-event-store';
import { parseLastEventId, postStreamOpenedAt } from '../../../../src/adapters/mcp/sessions/post-stream-event-id';

const NOW = Date.parse('2026-11-27T10:00:00Z');

/** A log whose appends finish in the order `delays` says, not the order they were made in. */
function makeSut(requests: number, options: { delays?: number[]; failAt?: number[] } = {}) {
  const rows: { stream: number; seq: number; message: string; ends: boolean }[] = [];
  const warnings: string[] = [];
  let call = 0;
  const log: PostStreamLog = {
    appendToPostStream: async (_session, stream, seq, message, ends) => {
      const n = call++;
      await new Promise((resolve) => setTimeout(resolve, options.delays?.[n] ?? 0)); // jest's fake clock: see run()
      if (options.failAt?.includes(n)) throw new Error('database away');
      rows.push({ stream, seq, message, ends });
      return true;
    },
  };
  return { store: new PostStreamEventStore(log, 's1', requests, (m) => void warnings.push(m), NOW), rows, warnings };
}

const note = (n: number) =>
  ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: n } }) as JSONRPCMessage;
const result = (id: number) => ({ jsonrpc: '2.0', id, result: {} }) as JSONRPCMessage;
/** Whether `promise` settles within 30 ms (of jest's fake clock, moved on here). */
const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await jest.advanceTimersByTimeAsync(30);
  return done;
};
/** Awaits `promise` while moving jest's fake clock on, so the log's appends (each behind a timer) finish. */
const run = async <T>(promise: Promise<T>): Promise<T> => {
  let done = false;
  void promise
    .finally(() => {
      done = true;
    })
    .catch(() => undefined);
  while (!done) await jest.advanceTimersByTimeAsync(1);
  return promise;
};

describe('PostStreamEventStore', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('names its events <stream>-<seq> from a name carrying its opening time, and writes nothing while the client reads them', async () => {
    const { store, rows } = makeSut(1);
    const ids = await run(
      Promise.all([store.storeEvent('x', {} as JSONRPCMessage), store.storeEvent('x', note(1)), store.storeEvent('x', result(1))]),
    );
    const s = store.stream;
    expect(ids).toEqual([`${s}-${s}`, `${s}-${s + 1}`, `${s}-${s + 2}`]);
    expect(postStreamOpenedAt(s)).toBe(NOW);
    for (const id of ids) expect(parseLastEventId(id)).toEqual({ stream: s, seq: Number(id.split('-')[1]) });
    expect(await settled(store.finished)).toBe(true);
    expect(rows).toEqual([]);
  });

  it('writes what it kept in order when spilled, then every later event before it is sent', async () => {
    const { store, rows } = makeSut(1, { delays: [20, 10, 40, 5] });
    await run(store.storeEvent('x', {} as JSONRPCMessage));
    await run(store.storeEvent('x', note(1)));
    await run(store.spill());
    expect(rows.map((r) => [r.seq - store.stream, JSON.parse(r.message)])).toEqual([
      [0, {}],
      [1, note(1)],
    ]);
    const next = store.storeEvent('x', note(2));
    expect(await settled(next)).toBe(false);
    await run(next);
    expect(rows).toHaveLength(3);
    await run(store.storeEvent('x', result(1)));
    expect(rows.map((r) => r.ends)).toEqual([false, false, false, true]);
    expect(rows.every((r) => r.stream === store.stream)).toBe(true);
  });

  it("marks the last awaited response as the stream's end and settles `finished` then, not before", async () => {
    const { store, rows } = makeSut(2);
    await run(store.storeEvent('x', {} as JSONRPCMessage));
    await run(store.spill());
    await run(store.storeEvent('x', result(1)));
    expect(await settled(store.finished)).toBe(false);
    await run(store.storeEvent('x', { jsonrpc: '2.0', id: 2, error: { code: -1, message: 'no' } }));
    expect(await settled(store.finished)).toBe(true);
    expect(rows.map((r) => r.ends)).toEqual([false, false, true]);
  });

  it('spills on its own past its bound, so a long stream is never held whole in memory', async () => {
    const { store, rows } = makeSut(1);
    for (let n = 0; n <= BUFFERED_EVENTS; n++) await run(store.storeEvent('x', note(n)));
    expect(store.spilled).toBe(true);
    await run(store.spill());
    expect(rows).toHaveLength(BUFFERED_EVENTS + 1);
  });

  it('keeps the live stream going when a write fails, and the end still settles', async () => {
    const { store, warnings } = makeSut(1, { failAt: [1, 2] });
    await run(store.spill());
    const s = store.stream;
    expect(await run(store.storeEvent('x', {} as JSONRPCMessage))).toBe(`${s}-${s}`);
    expect(await run(store.storeEvent('x', note(1)))).toBe(`${s}-${s + 1}`);
    expect(await run(store.storeEvent('x', result(1)))).toBe(`${s}-${s + 2}`);
    expect(warnings).toHaveLength(2);
    expect(await settled(store.finished)).toBe(true);
  });

  it("refuses to replay: resumption is the session streams' job", async () => {
    await expect(makeSut(1).store.replayEventsAfter()).rejects.toThrow('SessionStreams');
  });
});
