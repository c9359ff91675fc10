import { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { PostStreamEventStore, PostStreamLog } from '../../../../src/adapters/mcp/sessions/post-stream-event-store';

/** A log whose appends finish in the order `delays` says, not the order they were made in. */
function makeSut(requests: number, options: { delays?: number[]; failAt?: number[]; ended?: boolean } = {}) {
  const rows: { seq: number; stream: number; message: string; ends: boolean }[] = [];
  const warnings: string[] = [];
  let seq = 10;
  let call = 0;
  const log: PostStreamLog = {
    appendToPostStream: async (_session, stream, message, ends) => {
      const n = call++;
      await new Promise((resolve) => setTimeout(resolve, options.delays?.[n] ?? 0)); // jest's fake clock: see run()
      if (options.failAt?.includes(n)) throw new Error('database away');
      if (options.ended) return null;
      seq += 1;
      rows.push({ seq, stream: stream ?? seq, message, ends });
      return seq;
    },
  };
  return { store: new PostStreamEventStore(log, 's1', requests, (m) => void warnings.push(m)), rows, warnings };
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

  it('opens the stream with the priming event and names every event <stream>-<seq>, in the order the SDK sent them', async () => {
    const { store, rows } = makeSut(1, { delays: [20, 10, 0] });
    const ids = await run(
      Promise.all([store.storeEvent('x', {} as JSONRPCMessage), store.storeEvent('x', note(1)), store.storeEvent('x', result(1))]),
    );
    expect(ids).toEqual(['11-11', '11-12', '11-13']);
    expect(rows.map((r) => [r.stream, JSON.parse(r.message)])).toEqual([
      [11, {}],
      [11, note(1)],
      [11, result(1)],
    ]);
  });

  it("marks the last awaited response as the stream's end and settles `finished` then, not before", async () => {
    const { store, rows } = makeSut(2);
    await run(store.storeEvent('x', {} as JSONRPCMessage));
    await run(store.storeEvent('x', result(1)));
    expect(await settled(store.finished)).toBe(false);
    await run(store.storeEvent('x', { jsonrpc: '2.0', id: 2, error: { code: -1, message: 'no' } }));
    expect(await settled(store.finished)).toBe(true);
    expect(rows.map((r) => r.ends)).toEqual([false, false, true]);
  });

  it('keeps the live stream going when a write fails: the event gets the last stored id, and the end still settles', async () => {
    const { store, warnings } = makeSut(1, { failAt: [1, 2] });
    expect(await run(store.storeEvent('x', {} as JSONRPCMessage))).toBe('11-11');
    expect(await run(store.storeEvent('x', note(1)))).toBe('11-11');
    expect(await run(store.storeEvent('x', result(1)))).toBe('11-11');
    expect(warnings).toHaveLength(2);
    expect(await settled(store.finished)).toBe(true);
  });

  it('gives an id that resumes nothing once the session has ended', async () => {
    const { store, rows } = makeSut(1, { ended: true });
    expect(await run(store.storeEvent('x', {} as JSONRPCMessage))).toBe('0-0');
    expect(await run(store.storeEvent('x', result(1)))).toBe('0-0');
    expect(rows).toEqual([]);
    expect(await settled(store.finished)).toBe(true);
  });

  it("refuses to replay: resumption is the session streams' job", async () => {
    await expect(makeSut(1).store.replayEventsAfter()).rejects.toThrow('SessionStreams');
  });
});
