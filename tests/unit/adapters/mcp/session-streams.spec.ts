import { Response } from 'express';
import { newPostStreamName } from '../../../../src/adapters/mcp/sessions/post-stream-event-id';
import { SessionStreams, StreamStore } from '../../../../src/adapters/mcp/sessions/session-streams';
import { McpSession } from '../../../../src/domain/mcp-session';
import { FakeResponse } from '../../../fakes/fake-response';

const made: SessionStreams[] = [];
// Keep-alives, a POST stream's deadline and Date.now() all run on jest's fake clock: tick() moves it.
beforeEach(() => jest.useFakeTimers());
afterEach(() => {
  made.splice(0).forEach((streams) => streams.closeAll());
  jest.useRealTimers();
});

function makeSut(options: { maxStreams?: number; maxStreamsPerKey?: number; keepAliveMs?: number; postStreamMs?: number } = {}) {
  const log: { seq: number; message: string; stream: number | null; endsStream: boolean }[] = [];
  const claims = new Map<string, string>();
  const wanted: string[] = [];
  let refreshOk = true;
  const store: StreamStore = {
    claimStream: async (id, replica) => (claims.has(id) ? null : (claims.set(id, replica), log.length)),
    refreshStream: async () => refreshOk,
    releaseStream: async (id) => void claims.delete(id),
    readAfter: async (_id, after, limit, stream) => log.filter((e) => e.seq > after && e.stream === stream).slice(0, limit),
    postStreamOpenedAt: async (_id, stream) => (log.some((e) => e.seq === stream && e.stream === stream) ? Date.now() : null),
    touchSession: async () => refreshOk,
    wantPostStream: async (id, stream) => void wanted.push(`${id} ${stream}`),
  };
  type Waker = { wake(): void; end(): void };
  const wakers = new Map<string, Set<Waker>>();
  const watch = {
    watchStream: (id: string, waker: Waker) => {
      const set = wakers.get(id) ?? new Set<Waker>();
      wakers.set(id, set.add(waker));
      return () => void (set.delete(waker), set.size === 0 && wakers.delete(id));
    },
  };
  const streams = new SessionStreams(store, watch, {
    maxStreams: options.maxStreams ?? 10,
    maxStreamsPerKey: options.maxStreamsPerKey ?? 5,
    replica: 'r1',
    keepAliveMs: options.keepAliveMs ?? 60_000,
    postStreamMs: options.postStreamMs ?? 60_000,
  });
  made.push(streams);
  /** `stream` undefined: the standalone stream; null: a new POST stream (its priming event); else that POST stream. Returns the seq. */
  const publish = (message: object, stream: number | null | undefined = undefined, endsStream = false) => {
    const seq = log.length + 1;
    log.push({ seq, message: JSON.stringify(message), stream: stream === undefined ? null : (stream ?? seq), endsStream });
    for (const set of wakers.values()) set.forEach((w) => w.wake());
    return seq;
  };
  const endAll = (id: string) => [...(wakers.get(id) ?? [])].forEach((w) => w.end());
  /** An event of a POST stream named by its replica (`stream`, at `seq` in it), as that replica writes it out. */
  const spill = (stream: number, seq: number, message: object, endsStream = false) => {
    log.push({ seq, message: JSON.stringify(message), stream, endsStream });
    for (const set of wakers.values()) set.forEach((w) => w.wake());
  };
  return {
    streams,
    publish,
    spill,
    wanted,
    wakers,
    endAll,
    claims,
    forget: (seq: number) =>
      void log.splice(
        log.findIndex((e) => e.seq === seq),
        1,
      ),
    loseClaim: () => void (refreshOk = false),
  };
}

const session = (id: string, keyId = 'k'): McpSession => ({
  id,
  keyId,
  userId: 'u',
  protocolVersion: '2025-11-25',
  createdAt: new Date(),
  lastSeenAt: new Date(),
  endedAt: null,
});
const open = async (streams: SessionStreams, id: string, last: number | null = null, keyId = 'k') => {
  const res = new FakeResponse();
  await streams.serve(res as unknown as Response, session(id, keyId), last);
  return res;
};
/** Moves the fake clock `ms` on, running the timers due and the promise callbacks in between. */
const tick = (ms = 20) => jest.advanceTimersByTimeAsync(ms);

describe('SessionStreams', () => {
  it('sends each new event with its seq as the SSE id, from the head when no Last-Event-ID is given', async () => {
    const { streams, publish } = makeSut();
    publish({ old: true });
    const res = await open(streams, 's1');
    expect(res.statusCode).toBe(200);
    expect(res.headers['Content-Type']).toBe('text/event-stream');
    publish({ method: 'notifications/tools/list_changed' });
    await tick();
    expect(res.chunks).toEqual(['id: 2\nevent: message\ndata: {"method":"notifications/tools/list_changed"}\n\n']);
  });

  it('replays the events after Last-Event-ID', async () => {
    const { streams, publish } = makeSut();
    publish({ n: 1 });
    publish({ n: 2 });
    publish({ n: 3 });
    const res = await open(streams, 's1', 1);
    expect(res.chunks.map((c) => c.split('\n')[0])).toEqual(['id: 2', 'id: 3']);
  });

  it("answers 409 to a second stream of a session and 503 past the replica's bound, and frees both on close", async () => {
    const { streams, claims } = makeSut({ maxStreams: 2 });
    const first = await open(streams, 's1');
    expect((await open(streams, 's1')).statusCode).toBe(409);
    await open(streams, 's2');
    const refused = await open(streams, 's3');
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['Retry-After']).toBe('5');
    first.emit('close');
    await tick();
    expect(claims.has('s1')).toBe(false);
    expect(streams.size).toBe(1);
    expect((await open(streams, 's3')).statusCode).toBe(200);
  });

  it('sends a keep-alive comment each interval, and closes when the claim or the session is gone', async () => {
    const { streams, loseClaim } = makeSut({ keepAliveMs: 30 });
    const res = await open(streams, 's1');
    await tick(29);
    expect(res.chunks.filter((c) => c === ': keep-alive\n\n').length).toBe(0);
    await tick(51);
    expect(res.chunks.filter((c) => c === ': keep-alive\n\n').length).toBe(2);
    expect(res.writableEnded).toBe(false);
    loseClaim();
    await tick(80);
    expect(res.writableEnded).toBe(true);
    expect(streams.size).toBe(0);
  });

  it('closes a stream whose session ended elsewhere', async () => {
    const { streams, wakers, endAll } = makeSut();
    const res = await open(streams, 's1');
    endAll('s1');
    expect(res.writableEnded).toBe(true);
    expect(wakers.has('s1')).toBe(false);
  });
});

const resume = async (streams: SessionStreams, id: string, stream: number, after: number, keyId = 'k') => {
  const res = new FakeResponse();
  await streams.resume(res as unknown as Response, session(id, keyId), stream, after);
  return res;
};
const idsOf = (res: FakeResponse) => res.chunks.filter((c) => c.startsWith('id: ')).map((c) => c.split('\n')[0].slice(4));

describe('SessionStreams resuming a POST stream', () => {
  it('replays that stream only, after the given event, waits for the rest and closes after the event that ends it', async () => {
    const { streams, publish } = makeSut();
    const post = publish({}, null);
    publish({ n: 'standalone' });
    const seen = publish({ n: 1 }, post);
    publish({ n: 2 }, post);
    const res = await resume(streams, 's1', post, seen);
    expect(idsOf(res)).toEqual([`${post}-4`]);
    expect(res.writableEnded).toBe(false);
    publish({ n: 'other' }, null);
    publish({ id: 1, result: {} }, post, true);
    await tick();
    expect(idsOf(res)).toEqual([`${post}-4`, `${post}-6`]);
    expect(res.chunks.at(-1)).toBe(`id: ${post}-6\nevent: message\ndata: {"id":1,"result":{}}\n\n`);
    expect(res.writableEnded).toBe(true);
    expect(streams.size).toBe(0);
  });

  it("never replays the priming event, takes no claim, and counts against the replica's bound", async () => {
    const { streams, publish, claims } = makeSut({ maxStreams: 2, maxStreamsPerKey: 1 });
    const post = publish({}, null);
    const other = publish({}, null);
    await open(streams, 's1', null, 'k1');
    const res = await resume(streams, 's1', post, 0, 'k2');
    expect(res.statusCode).toBe(200);
    expect(res.chunks).toEqual([]);
    expect(claims.get('s1')).toBe('r1');
    expect((await resume(streams, 's2', other, other, 'k3')).statusCode).toBe(503);
  });

  it("counts standalone and resumed streams against the key's share: past it 429 for that key only", async () => {
    const { streams, publish } = makeSut({ maxStreams: 10, maxStreamsPerKey: 2 });
    const post = publish({}, null);
    const later = publish({}, null);
    await open(streams, 's1', null, 'hog');
    await resume(streams, 's1', post, post, 'hog');
    const refused = await open(streams, 's2', null, 'hog');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['Retry-After']).toBe('5');
    expect(JSON.parse(refused.chunks[0])).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringContaining('MCP_MAX_STREAMS_PER_KEY') },
    });
    expect((await resume(streams, 's1', later, later, 'hog')).statusCode).toBe(429);
    expect((await open(streams, 's3', null, 'other')).statusCode).toBe(200);
    expect(streams.size).toBe(3);
  });

  it("closes the first resumption of an answer when a second one comes, even with the key's share full", async () => {
    const { streams, publish } = makeSut({ maxStreamsPerKey: 2 });
    const post = publish({}, null);
    await open(streams, 's1');
    const first = await resume(streams, 's1', post, post);
    const second = await resume(streams, 's1', post, post);
    expect(first.writableEnded).toBe(true);
    expect(second.statusCode).toBe(200);
    expect(second.writableEnded).toBe(false);
    expect(streams.size).toBe(2);
    publish({ id: 1, result: {} }, post, true);
    await tick();
    expect(idsOf(first)).toEqual([]);
    expect(idsOf(second)).toEqual([`${post}-2`]);
    expect(streams.size).toBe(1);
  });

  it('ends a resumption still starting with an empty stream when a second one of the same answer comes', async () => {
    const { streams, publish } = makeSut({ maxStreamsPerKey: 1 });
    const post = publish({}, null);
    const [first, second] = await Promise.all([resume(streams, 's1', post, post), resume(streams, 's1', post, post)]);
    expect(first.statusCode).toBe(200);
    expect(first.headers['Content-Type']).toBe('text/event-stream');
    expect(first.writableEnded).toBe(true);
    expect(second.statusCode).toBe(200);
    expect(second.writableEnded).toBe(false);
    expect(streams.size).toBe(1);
  });

  it("replays what is left and closes at once when the stream's priming event is no longer kept", async () => {
    const { streams, publish, forget } = makeSut();
    const post = publish({}, null);
    const seen = publish({ n: 1 }, post);
    publish({ n: 2 }, post);
    forget(post);
    const res = await resume(streams, 's1', post, seen);
    expect(idsOf(res)).toEqual([`${post}-3`]);
    expect(res.writableEnded).toBe(true);
    expect(streams.size).toBe(0);
  });

  it('closes when the call cannot run any longer, and when the session ends', async () => {
    const { streams, publish } = makeSut({ postStreamMs: -9_950 });
    const post = publish({}, null);
    const res = await resume(streams, 's1', post, post);
    expect(res.writableEnded).toBe(false);
    await tick(49); // its deadline: opened + (-9 950 ms) + the 10 s grace = 50 ms on
    expect(res.writableEnded).toBe(false);
    await tick(1);
    expect(res.writableEnded).toBe(true);

    const long = makeSut();
    const other = long.publish({}, null);
    const open2 = await resume(long.streams, 's2', other, other);
    long.endAll('s2');
    expect(open2.writableEnded).toBe(true);
    expect(long.streams.size).toBe(0);
  });

  it('asks for a stream named by its replica that the log does not hold yet, and sends it once written out', async () => {
    const { streams, spill, wanted } = makeSut();
    const stream = newPostStreamName(Date.now());
    const res = await resume(streams, 's1', stream, stream + 1);
    expect(wanted).toEqual([`s1 ${stream}`]);
    expect(res.writableEnded).toBe(false);
    spill(stream, stream, {});
    spill(stream, stream + 1, { n: 1 });
    spill(stream, stream + 2, { id: 1, result: {} }, true);
    await tick();
    expect(idsOf(res)).toEqual([`${stream}-${stream + 2}`]);
    expect(res.writableEnded).toBe(true);
  });

  it('asks for nothing when the log already holds the rest, and closes at once for a name from the future', async () => {
    const { streams, spill, wanted } = makeSut();
    const stream = newPostStreamName(Date.now());
    spill(stream, stream + 1, { n: 1 });
    const res = await resume(streams, 's1', stream, stream);
    expect(idsOf(res)).toEqual([`${stream}-${stream + 1}`]);
    expect(wanted).toEqual([]);
    const ahead = newPostStreamName(Date.now() + 60_000);
    const refused = await resume(streams, 's1', ahead, ahead);
    expect(refused.writableEnded).toBe(true);
  });
});
