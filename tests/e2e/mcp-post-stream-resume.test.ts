import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SessionBus } from '../../src/application/ports/session-bus.port';
import { TOKENS } from '../../src/infrastructure/di/tokens';
import { startTwoReplicas, TwoReplicas } from '../support/app-replicas';
import { mcpPost, mcpRequest, readSse, SseEvent } from '../support/mcp-session-client';
import { startRelayUpstream, RelayUpstream } from '../support/relay-upstream';

jest.setTimeout(60_000);

let r: TwoReplicas;
let upstream: RelayUpstream;
let raw: string;
let otherRaw: string;

const CAPABILITIES = { sampling: {}, elicitation: { form: {} } };

beforeAll(async () => {
  r = await startTwoReplicas({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8' });
  upstream = await startRelayUpstream();
  const user = randomUUID();
  const create = async (name: string) =>
    (
      await request(r.a.app)
        .post('/api/v1/api-keys')
        .set('Authorization', `Bearer ${r.a.userToken(user)}`)
        .send({ name, scopes: ['mcp_servers:read', 'mcp_servers:write'] })
        .expect(201)
    ).body.raw_key as string;
  raw = await create('post-streams');
  otherRaw = await create('another key');
  const res = await mcpPost(r.aUrl, raw, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'mcp_servers', arguments: { action: 'create', data: { name: 'relay', url: upstream.url } } },
  });
  expect(res.status).toBe(200);
  await res.text();
});
afterAll(async () => {
  await upstream?.stop();
  await r?.close();
});

/** SSE events of a response as they come, every field kept; `drop()` cuts the connection. */
class EventReader {
  readonly events: SseEvent[] = [];
  ended = false;
  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {}

  static async post(base: string, session: string, body: unknown, key = raw): Promise<EventReader> {
    const controller = new AbortController();
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      signal: controller.signal,
      body: JSON.stringify(body),
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': session,
      },
    });
    return EventReader.start(response, controller);
  }

  static async get(base: string, session: string, lastEventId?: string, key = raw): Promise<EventReader> {
    const controller = new AbortController();
    const headers: Record<string, string> = {
      Accept: 'text/event-stream',
      'Mcp-Session-Id': session,
      ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}),
    };
    return EventReader.start(await mcpRequest(base, key, 'GET', headers, controller.signal), controller);
  }

  private static start(response: Response, controller: AbortController): EventReader {
    const reader = new EventReader(response, controller);
    if (response.status === 200) void reader.read();
    return reader;
  }

  drop(): void {
    this.controller.abort();
  }

  /** The JSON-RPC messages, priming events left out. */
  messages(): Record<string, any>[] {
    return this.events.filter((e) => e.data.trim() !== '').map((e) => JSON.parse(e.data));
  }

  private async read(): Promise<void> {
    await readSse(this.response, { event: (event) => this.events.push(event) });
    this.ended = true;
  }
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function initialize(base: string, key = raw, protocolVersion = '2025-11-25'): Promise<string> {
  const res = await mcpPost(base, key, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities: CAPABILITIES, clientInfo: { name: 'resume', version: '1' } },
  });
  expect(res.status).toBe(200);
  await res.text();
  return res.headers.get('mcp-session-id')!;
}

const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {}, _meta: { progressToken: `p${id}` } },
});
const isResult = (id: number) => (m: Record<string, any>) => m.id === id && 'result' in m;

describe('resumable SSE answers to POSTs in a session', () => {
  it('starts with a priming event (an id, retry: 1000, empty data), and every later event has an id of the same stream', async () => {
    const session = await initialize(r.aUrl);
    const post = await EventReader.post(r.aUrl, session, call(1, 'relay__progress'));
    expect(post.response.headers.get('content-type')).toContain('text/event-stream');
    await until(() => post.ended);
    const [priming, ...rest] = post.events;
    expect(priming).toEqual({ id: expect.stringMatching(/^\d+-\d+$/), retry: '1000', data: '' });
    const stream = priming.id!.split('-')[0];
    expect(priming.id).toBe(`${stream}-${stream}`);
    expect(rest.length).toBeGreaterThan(0);
    for (const event of rest) expect(event.id).toMatch(new RegExp(`^${stream}-\\d+$`));
    expect(post.messages().some(isResult(1))).toBe(true);
  });

  it('resumes a dropped POST stream on the other replica: the events not yet seen, then the result, then the stream closes', async () => {
    const session = await initialize(r.aUrl);
    const post = await EventReader.post(r.aUrl, session, call(2, 'relay__steps'));
    await until(() => post.messages().some((m) => m.method === 'notifications/progress'));
    const seen = post.events.at(-1)!.id!;
    post.drop();

    const resumed = await EventReader.get(r.b.url, session, seen);
    expect(resumed.response.status).toBe(200);
    await until(() => resumed.ended, 10_000);
    const messages = resumed.messages();
    expect(messages.map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'notifications/message', 'result']);
    expect(messages[0].params).toEqual({ progressToken: 'p2', progress: 2, total: 2 });
    expect(messages[2]).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: '"steps done"' }] } });
    for (const event of resumed.events) expect(Number(event.id!.split('-')[1])).toBeGreaterThan(Number(seen.split('-')[1]));
  });

  it('stores a relayed request too: the client resumes, answers on any replica, and gets the result', async () => {
    const session = await initialize(r.aUrl);
    const post = await EventReader.post(r.aUrl, session, call(3, 'relay__elicit'));
    await until(() => post.events.length >= 1);
    const priming = post.events[0].id!;
    post.drop();

    const resumed = await EventReader.get(r.b.url, session, priming);
    await until(() => resumed.messages().some((m) => m.method === 'elicitation/create'));
    const asked = resumed.messages().find((m) => m.method === 'elicitation/create')!;
    const answer = await mcpPost(
      r.aUrl,
      raw,
      { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' } } },
      { 'Mcp-Session-Id': session },
    );
    expect(answer.status).toBe(202);
    await until(() => resumed.ended, 10_000);
    expect(resumed.messages().find(isResult(3))?.result.content[0].text).toBe(
      JSON.stringify({ action: 'accept', content: { name: 'Ada' } }),
    );
  });

  it('keeps POST stream events off the standalone stream, lets a resumption in beside it, and still resumes the standalone stream by its own ids', async () => {
    const session = await initialize(r.aUrl);
    const standalone = await EventReader.get(r.aUrl, session);
    expect(standalone.response.status).toBe(200);
    const bus = r.a.container.get<SessionBus>(TOKENS.SessionBus);
    const sessionId = (await r.a.db.dataSource.query('SELECT id FROM mcp_sessions ORDER BY created_at DESC LIMIT 1'))[0].id as string;
    await bus.publishToStream(sessionId, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await until(() => standalone.events.length === 1);

    const post = await EventReader.post(r.aUrl, session, call(4, 'relay__steps'));
    await until(() => post.events.length >= 1);
    post.drop();
    // The standalone stream is still open on replica a: a resumption is a different stream (no 409).
    const resumed = await EventReader.get(r.b.url, session, post.events[0].id);
    expect(resumed.response.status).toBe(200);
    await until(() => resumed.ended, 10_000);
    expect(resumed.messages().some(isResult(4))).toBe(true);
    await bus.publishToStream(sessionId, { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { n: 2 } });
    await until(() => standalone.events.length === 2);
    expect(standalone.events.map((e) => e.id)).toEqual([expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+$/)]);
    expect(standalone.messages().map((m) => m.method)).toEqual(['notifications/tools/list_changed', 'notifications/tools/list_changed']);
    standalone.drop();
    // Replica a lets go of the stream's claim when it sees the connection close, a moment after the drop.
    let released = false;
    const claim = async () => {
      released =
        (await r.a.db.dataSource.query('SELECT stream_replica FROM mcp_sessions WHERE id = $1', [sessionId]))[0].stream_replica === null;
    };
    for (let tries = 0; tries < 50 && !released; tries += 1) {
      await claim();
      if (!released) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(released).toBe(true);

    // The standalone stream resumed on the other replica from its first event: its second, and nothing of the POST stream.
    const again = await EventReader.get(r.b.url, session, standalone.events[0].id);
    expect(again.response.status).toBe(200);
    await until(() => again.events.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    again.drop();
    expect(again.messages()).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { n: 2 } }]);
  });

  it('primes no stream of a session on 2025-06-18 (empty data needs 2025-11-25), and still names and ends it', async () => {
    const session = await initialize(r.aUrl, raw, '2025-06-18');
    const post = await EventReader.post(r.aUrl, session, call(10, 'relay__progress'));
    expect(post.response.headers.get('content-type')).toContain('text/event-stream');
    await until(() => post.ended);
    expect(post.events.every((e) => e.data.trim() !== '')).toBe(true);
    expect(post.events.every((e) => /^\d+-\d+$/.test(e.id ?? ''))).toBe(true);
    expect(post.messages().some(isResult(10))).toBe(true);
  });

  it('writes nothing to the log for a stream its client read to the end', async () => {
    const session = await initialize(r.aUrl);
    const post = await EventReader.post(r.aUrl, session, call(8, 'relay__steps'));
    await until(() => post.ended, 10_000);
    expect(post.messages().some(isResult(8))).toBe(true);
    const rows = await r.a.db.dataSource.query(
      'SELECT count(*)::int AS n FROM mcp_session_events WHERE session_id = (SELECT id FROM mcp_sessions ORDER BY created_at DESC LIMIT 1)',
    );
    expect(rows[0].n).toBe(0);
  });

  it('resumes on the other replica a stream its first replica still holds in memory, its client still connected', async () => {
    const session = await initialize(r.aUrl);
    const post = await EventReader.post(r.aUrl, session, call(9, 'relay__steps'));
    await until(() => post.messages().some((m) => m.method === 'notifications/progress'));
    const seen = post.events.at(-1)!.id!;
    // Replica a still writes to its client: only the other replica's ask makes it write the stream out.
    const resumed = await EventReader.get(r.b.url, session, seen);
    expect(resumed.response.status).toBe(200);
    await until(() => resumed.ended, 10_000);
    expect(resumed.messages().map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'notifications/message', 'result']);
    await until(() => post.ended, 10_000);
    expect(post.messages().some(isResult(9))).toBe(true);
  });

  it("answers 404 to another key's resumption, and replays nothing of a stream the log no longer knows", async () => {
    const session = await initialize(r.aUrl);
    const post = await EventReader.post(r.aUrl, session, call(5, 'relay__progress'));
    await until(() => post.ended);
    const other = await EventReader.get(r.b.url, session, post.events[0].id, otherRaw);
    expect(other.response.status).toBe(404);
    expect(await other.response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });

    const unknown = await EventReader.get(r.b.url, session, '999999-999999');
    expect(unknown.response.status).toBe(200);
    await until(() => unknown.ended);
    expect(unknown.events).toEqual([]);
  });

  it("cancels the call on the client's notifications/cancelled even after its stream dropped", async () => {
    const session = await initialize(r.aUrl);
    const before = upstream.cancelled;
    const post = await EventReader.post(r.aUrl, session, call(6, 'relay__slow'));
    await until(() => post.events.length >= 1);
    post.drop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Dropping the stream did not cancel it.
    expect(upstream.cancelled).toBe(before);
    const cancel = await mcpPost(
      r.b.url,
      raw,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 6 } },
      { 'Mcp-Session-Id': session },
    );
    expect(cancel.status).toBe(202);
    await until(() => upstream.cancelled === before + 1);
  });

  it('leaves stateless SSE answers as they were: no priming event, no ids', async () => {
    const res = await mcpPost(r.aUrl, raw, call(7, 'relay__echo'), { Accept: 'text/event-stream' });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toMatch(/^id:/m);
    expect(text).not.toMatch(/^retry:/m);
    expect(text).toContain('"id":7');
  });
});
