import { EventEmitter } from 'node:events';
import { Response } from 'express';
import { SessionStreams, StreamStore } from '../../../../src/adapters/mcp/sessions/session-streams';
import { McpSession } from '../../../../src/domain/mcp-session';

/** The part of an Express response a stream writes to, recorded. */
class FakeResponse extends EventEmitter {
  statusCode = 0;
  headers: Record<string, string> = {};
  chunks: string[] = [];
  writableEnded = false;
  writeHead(status: number, headers: Record<string, string>) { this.statusCode = status; Object.assign(this.headers, headers); return this; }
  flushHeaders() {}
  setHeader(name: string, value: string) { this.headers[name] = value; }
  status(code: number) { this.statusCode = code; return this; }
  type() { return this; }
  send(body: string) { this.chunks.push(body); this.writableEnded = true; return this; }
  write(chunk: string) { this.chunks.push(chunk); return true; }
  end() { this.writableEnded = true; }
}

const made: SessionStreams[] = [];
afterEach(() => made.splice(0).forEach((streams) => streams.closeAll()));

function makeSut(options: { maxStreams?: number; keepAliveMs?: number } = {}) {
  const log: { seq: number; message: string; stream: number | null; endsStream: boolean }[] = [];
  const claims = new Map<string, string>();
  let refreshOk = true;
  const store: StreamStore = {
    claimStream: async (id, replica) => (claims.has(id) ? null : (claims.set(id, replica), log.length)),
    refreshStream: async () => refreshOk,
    releaseStream: async (id) => void claims.delete(id),
    readAfter: async (_id, after, limit, stream) => log.filter((e) => e.seq > after && e.stream === stream).slice(0, limit),
    postStreamOpenedAt: async (_id, stream) => (log.some((e) => e.seq === stream && e.stream === stream) ? Date.now() : null),
    touchSession: async () => refreshOk,
  };
  const wakers = new Map<string, { wake(): void; end(): void }>();
  const watch = { watchStream: (id: string, waker: { wake(): void; end(): void }) => (wakers.set(id, waker), () => void wakers.delete(id)) };
  const streams = new SessionStreams(store, watch, { maxStreams: options.maxStreams ?? 10, replica: 'r1', keepAliveMs: options.keepAliveMs ?? 60_000 });
  made.push(streams);
  const publish = (message: object) => {
    log.push({ seq: log.length + 1, message: JSON.stringify(message), stream: null, endsStream: false });
    for (const w of wakers.values()) w.wake();
  };
  return { streams, publish, wakers, claims, loseClaim: () => void (refreshOk = false) };
}

const session = (id: string): McpSession => ({ id, keyId: 'k', userId: 'u', protocolVersion: '2025-11-25', createdAt: new Date(), lastSeenAt: new Date(), endedAt: null });
const open = async (streams: SessionStreams, id: string, last: number | null = null) => {
  const res = new FakeResponse();
  await streams.serve(res as unknown as Response, session(id), last);
  return res;
};
const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

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

  it('answers 409 to a second stream of a session and 503 past the replica\'s bound, and frees both on close', async () => {
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
    await tick(80);
    expect(res.chunks.filter((c) => c === ': keep-alive\n\n').length).toBeGreaterThanOrEqual(1);
    expect(res.writableEnded).toBe(false);
    loseClaim();
    await tick(80);
    expect(res.writableEnded).toBe(true);
    expect(streams.size).toBe(0);
  });

  it('closes a stream whose session ended elsewhere', async () => {
    const { streams, wakers } = makeSut();
    const res = await open(streams, 's1');
    wakers.get('s1')!.end();
    expect(res.writableEnded).toBe(true);
    expect(wakers.has('s1')).toBe(false);
  });
});
