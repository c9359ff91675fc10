import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SessionStreams } from '../../src/adapters/mcp/sessions/session-streams';
import { startTwoReplicas, TwoReplicas } from '../support/app-replicas';
import { readSse, SseEvent } from '../support/mcp-session-client';
import { eventually } from '../support/replica';
import { RelayUpstream, startRelayUpstream } from '../support/relay-upstream';

jest.setTimeout(60_000);

let r: TwoReplicas;
let upstream: RelayUpstream;
let owner: string;
const opened: Stream[] = [];

// A replica holds 3 streams, a key 2 of them: one key can never take the last place.
beforeAll(async () => {
  r = await startTwoReplicas({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_MAX_STREAMS_PER_REPLICA: '3', MCP_MAX_STREAMS_PER_KEY: '2' });
  upstream = await startRelayUpstream();
  owner = randomUUID();
  const admin = await createKey(['mcp_servers:read', 'mcp_servers:write']);
  const created = await post(r.aUrl, '/mcp', admin, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'mcp_servers', arguments: { action: 'create', data: { name: 'relay', url: upstream.url } } },
  });
  expect(created.status).toBe(200);
  await created.text();
});
afterEach(async () => {
  for (const stream of opened.splice(0)) stream.close();
  // Each replica lets go of a stream's place when it sees its connection close, a moment later.
  await eventually(() => [r.a.container, r.b.container].every((c) => c.get(SessionStreams).size === 0), 5000, 20);
});
afterAll(async () => {
  await upstream?.stop();
  await r?.close();
});

async function createKey(scopes: string[]): Promise<string> {
  const res = await request(r.a.app)
    .post('/api/v1/api-keys')
    .set('Authorization', `Bearer ${r.a.userToken(owner)}`)
    .send({ name: 'shares', scopes })
    .expect(201);
  return res.body.raw_key as string;
}

function post(base: string, path: string, key: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    signal,
    body: JSON.stringify(body),
    headers: {
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
  });
}

async function initialize(base: string, path: string, key: string): Promise<string> {
  const res = await post(base, path, key, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'shares', version: '1' } },
  });
  expect(res.status).toBe(200);
  await res.text();
  return res.headers.get('mcp-session-id')!;
}

/** An SSE response read as it arrives: a GET stream, or a POST's answer. */
class Stream {
  readonly events: SseEvent[] = [];
  ended = false;
  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {
    opened.push(this);
    if (response.status === 200) void readSse(response, { event: (event) => this.events.push(event) }).then(() => (this.ended = true));
  }

  static async get(base: string, path: string, key: string, session: string, lastEventId?: string): Promise<Stream> {
    const controller = new AbortController();
    const response = await fetch(`${base}${path}`, {
      signal: controller.signal,
      headers: {
        Authorization: `Bearer ${key}`,
        Accept: 'text/event-stream',
        'Mcp-Session-Id': session,
        ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}),
      },
    });
    return new Stream(response, controller);
  }

  /** A tools/call in `session` answered as a stream; its first event is the priming event, whose id resumes it. */
  static async call(base: string, key: string, session: string, tool: string, id: number): Promise<Stream> {
    const controller = new AbortController();
    const response = await post(
      base,
      '/mcp',
      key,
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: {} } },
      { 'Mcp-Session-Id': session },
      controller.signal,
    );
    return new Stream(response, controller);
  }

  close(): void {
    this.controller.abort();
  }
}

describe("MCP_MAX_STREAMS_PER_KEY: one key's share of a replica's streams", () => {
  it('refuses a key past its share with 429, standalone, resumed and on /mcp/servers/<name> alike, and another key still gets its stream', async () => {
    const hog = await createKey(['mcp_servers:read', 'mcp_servers:write']);
    const sessions = [await initialize(r.aUrl, '/mcp', hog), await initialize(r.aUrl, '/mcp', hog)];
    const onServer = await initialize(r.aUrl, '/mcp/servers/relay', hog);
    const answered = await Stream.call(r.aUrl, hog, sessions[0], 'relay__progress', 1);
    await eventually(() => answered.ended, 10_000, 20);

    const held = [await Stream.get(r.b.url, '/mcp', hog, sessions[0]), await Stream.get(r.b.url, '/mcp', hog, sessions[1])];
    expect(held.map((s) => s.response.status)).toEqual([200, 200]);
    const refused = await Stream.get(r.b.url, '/mcp/servers/relay', hog, onServer);
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get('retry-after')).toBe('5');
    expect(await refused.response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringContaining('MCP_MAX_STREAMS_PER_KEY') },
    });
    // Resuming a POST's answer is a stream as well.
    expect((await Stream.get(r.b.url, '/mcp', hog, sessions[0], answered.events[0].id)).response.status).toBe(429);

    // The replica's last place is still there for another key.
    const other = await createKey(['mcp_servers:read', 'mcp_servers:write']);
    const theirs = await Stream.get(r.b.url, '/mcp', other, await initialize(r.aUrl, '/mcp', other));
    expect(theirs.response.status).toBe(200);
    expect(theirs.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // The share is per replica, and given back when a stream closes.
    expect((await Stream.get(r.aUrl, '/mcp/servers/relay', hog, onServer)).response.status).toBe(200);
    held[0].close();
    await eventually(() => r.b.container.get(SessionStreams).size === 2, 5000, 20);
    expect((await Stream.get(r.b.url, '/mcp', hog, sessions[0])).response.status).toBe(200);
  });

  it('lets a second resumption of the same answer replace the first, without a 429 when the key holds its share', async () => {
    const key = await createKey(['mcp_servers:read', 'mcp_servers:write']);
    const [session, another] = [await initialize(r.aUrl, '/mcp', key), await initialize(r.aUrl, '/mcp', key)];
    const slow = await Stream.call(r.aUrl, key, session, 'relay__slow', 1);
    await eventually(() => slow.events.length >= 1, 5000, 20);
    const priming = slow.events[0].id!;
    slow.close();

    const first = await Stream.get(r.b.url, '/mcp', key, session, priming);
    const standalone = await Stream.get(r.b.url, '/mcp', key, another);
    expect([first.response.status, standalone.response.status]).toEqual([200, 200]);
    const second = await Stream.get(r.b.url, '/mcp', key, session, priming);
    expect(second.response.status).toBe(200);
    expect(second.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await eventually(() => first.ended, 5000, 20);
    expect(second.ended).toBe(false);
    expect(r.b.container.get(SessionStreams).size).toBe(2);

    // Another answer's resumption is a stream more: past the share.
    const quick = await Stream.call(r.aUrl, key, session, 'relay__progress', 2);
    await eventually(() => quick.ended, 10_000, 20);
    expect((await Stream.get(r.b.url, '/mcp', key, session, quick.events[0].id)).response.status).toBe(429);
    const cancelled = upstream.cancelled;
    const cancel = await post(
      r.aUrl,
      '/mcp',
      key,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      { 'Mcp-Session-Id': session },
    );
    expect(cancel.status).toBe(202);
    await eventually(() => upstream.cancelled === cancelled + 1, 5000, 20);
  });
});
