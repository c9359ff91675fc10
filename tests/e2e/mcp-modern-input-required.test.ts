import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import request from 'supertest';
import { connectClient, listen } from '../support/mcp-client';
import { makeKey, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';
import { SealedRequestState } from '../../src/adapters/mcp/modern/sealed-request-state';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';
import { startV2Upstream, UPSTREAM_STATES, V2Upstream } from '../support/v2-upstream';

jest.setTimeout(60_000);

/**
 * Input-required results (MRTR) of a 2026-07-28 upstream passed through to
 * 2026-07-28 clients on /mcp and /mcp/servers/<name>: the SDK v2 client
 * fulfilling them itself (autoFulfill), and by hand (allowInputRequired) to
 * see the wire: keygate's sealed requestState in place of the upstream's,
 * refused when tampered with or replayed elsewhere, the client's declared
 * capabilities passed on, each round gated like a first call. Also the
 * client's trace context and logLevel reaching upstreams.
 */
const V = '2026-07-28';
const TRACE = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'kg=1', baggage: 'user=ada' };
const ALL = { elicitation: {}, sampling: {}, roots: {} };
let t: TestApp;
let app: { url: string; close(): Promise<void> };
let deep: V2Upstream;
let old: UpstreamMcpServer;
let owner: TestKey;
const closers: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '3000' });
  app = await listen(t.app);
  [deep, old] = await Promise.all([startV2Upstream('modern', 'deep'), startUpstream('old')]);
  owner = await makeKey(t);
  const full = await connectClient(app.url, { Authorization: `Bearer ${owner.raw}` });
  closers.push(full);
  for (const data of [
    { name: 'deep', url: deep.url, tool_scopes: { ask: ['chat:read'] } },
    { name: 'other', url: deep.url },
    { name: 'old', url: old.url },
  ]) {
    expect((await full.callTool({ name: 'mcp_servers', arguments: { action: 'create', data } })).isError).toBeFalsy();
  }
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c.close()));
  await Promise.all([deep?.stop(), old?.stop()]);
  await app?.close();
  await t?.close();
});

/** A pinned 2026 client declaring `capabilities`; with `answers`, it fulfils input requests itself (Ada, "4", one root). */
async function clientFor(key: TestKey, path: string, capabilities: Record<string, unknown>, answers = true): Promise<ClientV2> {
  const client = new ClientV2(
    { name: 'mrtr', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: V } }, capabilities, inputRequired: { autoFulfill: answers } },
  );
  if ('elicitation' in capabilities)
    client.setRequestHandler('elicitation/create', (async () => ({ action: 'accept', content: { name: 'Ada' } })) as never);
  if ('sampling' in capabilities)
    client.setRequestHandler('sampling/createMessage', (async () => ({
      role: 'assistant',
      content: { type: 'text', text: '4' },
      model: 'test',
    })) as never);
  if ('roots' in capabilities)
    client.setRequestHandler('roots/list', (async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] })) as never);
  await client.connect(new TransportV2(new URL(`${app.url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${key.raw}` } } }));
  closers.push(client);
  return client;
}
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;
const manual = { allowInputRequired: true } as const;
type Answer = { resultType: string; inputRequests?: Record<string, { method: string }>; requestState?: string };
const ask = (client: ClientV2, method: string, params: Record<string, unknown>) =>
  client.request({ method, params } as never, manual as never) as Promise<Answer & Record<string, unknown>>;

/** A raw 2026 POST, for what a client library would not send. */
function post(
  path: string,
  key: TestKey,
  id: number | string,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = ALL,
) {
  const name = (params.name ?? params.uri) as string;
  return request(t.app)
    .post(path)
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json')
    .set('Authorization', `Bearer ${key.raw}`)
    .set('MCP-Protocol-Version', V)
    .set('Mcp-Method', method)
    .set('Mcp-Name', name)
    .send(
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': V,
            'io.modelcontextprotocol/clientCapabilities': capabilities,
            ...(params._meta as object),
          },
        },
      }),
    );
}
const ADA = { input: { action: 'accept', content: { name: 'Ada' } } };

describe.each([
  ['/mcp', 'deep__'],
  ['/mcp/servers/deep', ''],
])('%s, a 2026-07-28 upstream asking a 2026-07-28 client for input', (path, prefix) => {
  const endpoint = path.slice('/mcp'.length);

  it("is fulfilled end to end by the client itself: elicitation, sampling, roots, two rounds with the upstream's own state", async () => {
    const client = await clientFor(owner, endpoint, ALL);
    expect(text(await client.callTool({ name: `${prefix}ask`, arguments: {} }))).toBe('deep: accept {"name":"Ada"}');
    expect(text(await client.callTool({ name: `${prefix}think`, arguments: {} }))).toBe('deep: the model said {"type":"text","text":"4"}');
    expect(text(await client.callTool({ name: `${prefix}where`, arguments: {} }))).toBe('deep: roots file:///work');
    expect(text(await client.callTool({ name: `${prefix}steps`, arguments: {} }))).toBe(
      'deep: two rounds, the model said {"type":"text","text":"4"}',
    );
  });

  it('gets prompts and reads resources that ask first', async () => {
    const client = await clientFor(owner, endpoint, ALL);
    const prompt = await client.getPrompt({ name: `${prefix}interview` });
    expect(prompt.messages[0].content).toEqual({ type: 'text', text: 'deep interviews {"name":"Ada"}' });
    const uri = path === '/mcp' ? 'keygate://deep/file:///notes/asked' : 'file:///notes/asked';
    const read = await client.readResource({ uri });
    expect(read.contents[0]).toMatchObject({ uri, text: 'deep: for {"name":"Ada"}' });
  });

  it("shows the wire: the upstream's inputRequests as they came, keygate's sealed state instead of the upstream's, which goes back to it on the retry", async () => {
    const client = await clientFor(owner, endpoint, ALL, false);
    const first = await ask(client, 'tools/call', { name: `${prefix}steps`, arguments: {} });
    expect(first.resultType).toBe('input_required');
    expect(first.inputRequests).toEqual({ input: expect.objectContaining({ method: 'elicitation/create' }) });
    expect(typeof first.requestState).toBe('string');
    expect(first.requestState).not.toContain(UPSTREAM_STATES[0]);
    expect(Buffer.from(first.requestState!.replace(/[^A-Za-z0-9+/_-]/g, ''), 'base64').toString('latin1')).not.toContain(
      UPSTREAM_STATES[0],
    );
    deep.received.length = 0;
    const second = await ask(client, 'tools/call', {
      name: `${prefix}steps`,
      arguments: {},
      inputResponses: ADA,
      requestState: first.requestState,
    });
    expect(deep.received.at(-1)).toMatchObject({ requestState: UPSTREAM_STATES[0], inputResponses: ADA });
    expect(second).toMatchObject({ resultType: 'input_required', inputRequests: { model: { method: 'sampling/createMessage' } } });
    expect(second.requestState).not.toBe(first.requestState);
    expect(second.requestState).not.toContain(UPSTREAM_STATES[1]);
    const done = await ask(client, 'tools/call', {
      name: `${prefix}steps`,
      arguments: {},
      requestState: second.requestState,
      inputResponses: { model: { role: 'assistant', content: { type: 'text', text: '4' }, model: 'test' } },
    });
    expect(deep.received.at(-1)).toMatchObject({ requestState: UPSTREAM_STATES[1] });
    expect(done).toMatchObject({ content: [{ type: 'text', text: 'deep: two rounds, the model said {"type":"text","text":"4"}' }] });
  });

  it('passes prompts/get and resources/read rounds through the same way', async () => {
    const client = await clientFor(owner, endpoint, ALL, false);
    const name = `${prefix}interview`;
    const prompt = await ask(client, 'prompts/get', { name });
    expect(prompt).toMatchObject({ resultType: 'input_required', inputRequests: { input: { method: 'elicitation/create' } } });
    expect(prompt.requestState).not.toContain('prompt-state');
    expect(prompt.messages).toBeUndefined();
    const got = await ask(client, 'prompts/get', { name, inputResponses: ADA, requestState: prompt.requestState });
    expect(got).toMatchObject({ messages: [{ content: { text: 'deep interviews {"name":"Ada"}' } }] });
    const uri = path === '/mcp' ? 'keygate://deep/file:///notes/asked' : 'file:///notes/asked';
    const read = await ask(client, 'resources/read', { uri });
    expect(read).toMatchObject({ resultType: 'input_required' });
    expect(read.contents).toBeUndefined();
    expect(deep.received.at(-1)).toMatchObject({ method: 'resources/read', requestState: undefined });
    const done = await ask(client, 'resources/read', { uri, inputResponses: ADA, requestState: read.requestState });
    expect(deep.received.at(-1)).toMatchObject({ method: 'resources/read', requestState: 'read-state', inputResponses: ADA });
    expect(done).toMatchObject({ contents: [{ uri, text: 'deep: for {"name":"Ada"}' }] });
  });

  it("opens a retry's requestState once, for each of the three methods", async () => {
    const client = await clientFor(owner, endpoint, ALL, false);
    const uri = path === '/mcp' ? 'keygate://deep/file:///notes/asked' : 'file:///notes/asked';
    const opens = jest.spyOn(SealedRequestState.prototype, 'open');
    try {
      for (const [method, params] of [
        ['tools/call', { name: `${prefix}ask`, arguments: {} }],
        ['prompts/get', { name: `${prefix}interview` }],
        ['resources/read', { uri }],
      ] as const) {
        const first = await ask(client, method, params);
        expect(first.resultType).toBe('input_required');
        opens.mockClear();
        const done = await ask(client, method, { ...params, inputResponses: ADA, requestState: first.requestState });
        expect(done.resultType).not.toBe('input_required');
        expect(opens).toHaveBeenCalledTimes(1);
      }
    } finally {
      opens.mockRestore();
    }
  });

  // In band, as the SDK answers a state its ServerOptions.requestState.verify refuses: HTTP 200, the frozen -32602.
  it("refuses a tampered requestState with the SDK's -32602, the upstream not asked", async () => {
    const first = await post(path, owner, 1, 'tools/call', { name: `${prefix}ask`, arguments: {} }).expect(200);
    const state = first.body.result.requestState as string;
    const asked = deep.received.length;
    for (const tampered of [`${state}-TAMPERED`, `${state.slice(0, -4)}AAAA`, 'v1.e30.AAAA', '']) {
      const res = await post(path, owner, 2, 'tools/call', {
        name: `${prefix}ask`,
        arguments: {},
        inputResponses: ADA,
        requestState: tampered,
      }).expect(200);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } },
      });
    }
    expect(deep.received.length).toBe(asked);
  });

  it('refuses a requestState replayed with another key, to another tool or another server', async () => {
    const first = await post(path, owner, 1, 'tools/call', { name: `${prefix}ask`, arguments: {} }).expect(200);
    const state = first.body.result.requestState as string;
    const retry = { arguments: {}, inputResponses: ADA, requestState: state };
    const sibling = await makeKey(t, [], owner.user);
    expect((await post(path, sibling, 2, 'tools/call', { name: `${prefix}ask`, ...retry }).expect(200)).body.error.code).toBe(-32602);
    expect((await post(path, owner, 3, 'tools/call', { name: `${prefix}think`, ...retry }).expect(200)).body.error.code).toBe(-32602);
    const elsewhere = path === '/mcp' ? ['/mcp/servers/deep', 'ask'] : ['/mcp', 'deep__ask'];
    expect((await post(elsewhere[0], owner, 4, 'tools/call', { name: elsewhere[1], ...retry }).expect(200)).body.error.code).toBe(-32602);
    const twin = path === '/mcp' ? ['/mcp', 'other__ask'] : ['/mcp/servers/other', 'ask'];
    expect((await post(twin[0], owner, 5, 'tools/call', { name: twin[1], ...retry }).expect(200)).body.error.code).toBe(-32602);
    // The state is still good where it was minted.
    expect((await post(path, owner, 6, 'tools/call', { name: `${prefix}ask`, ...retry }).expect(200)).body.result.content[0].text).toBe(
      'deep: accept {"name":"Ada"}',
    );
  });

  it('declares to the upstream what the client declared: it asks only for that, or answers -32021, relayed as such', async () => {
    deep.clientCapabilities.length = 0;
    const sampling = await post(path, owner, 1, 'tools/call', { name: `${prefix}both`, arguments: {} }, { sampling: {} }).expect(200);
    expect(Object.keys(sampling.body.result.inputRequests)).toEqual(['model']);
    expect(deep.clientCapabilities.at(-1)).toEqual({ sampling: {} });
    const none = await post(path, owner, 2, 'tools/call', { name: `${prefix}ask`, arguments: {} }, { sampling: {} }).expect(400);
    expect(none.body).toMatchObject({ id: 2, error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } } });
  });

  it("gates every round as a first call: a key that lost the tool's scope between rounds is refused 403, and each round is audited", async () => {
    const key = await makeKey(t, ['chat:read'], owner.user);
    const first = await post(path, key, 1, 'tools/call', { name: `${prefix}ask`, arguments: {} }).expect(200);
    const retry = { name: `${prefix}ask`, arguments: {}, inputResponses: ADA, requestState: first.body.result.requestState };
    await request(t.app)
      .patch(`/api/v1/api-keys/${key.id}`)
      .set('Authorization', `Bearer ${t.userToken(owner.user)}`)
      .send({ scopes: ['mcp_servers:read'] })
      .expect(200);
    const asked = deep.received.length;
    const refused = await post(path, key, 2, 'tools/call', retry).expect(403);
    expect(refused.body).toMatchObject({ id: 2, error: { code: -32003 } });
    expect(deep.received.length).toBe(asked);
    const rows: { outcome: string; action: string }[] = await t.db.dataSource.query(
      "SELECT action, details->>'outcome' AS outcome FROM audit_events WHERE key_id = $1 ORDER BY seq",
      [key.id],
    );
    expect(rows.filter((row) => row.action.startsWith('tool.')).map((row) => `${row.action} ${row.outcome}`)).toEqual([
      'tool.called input_required',
      'tool.denied denied',
    ]);
  });

  it('refuses a flow past 8 rounds', async () => {
    let state: string | undefined;
    for (let round = 1; round <= 8; round++) {
      const res = await post(path, owner, round, 'tools/call', {
        name: `${prefix}forever`,
        arguments: {},
        ...(state && { inputResponses: ADA, requestState: state }),
      }).expect(200);
      expect(res.body.result.resultType).toBe('input_required');
      state = res.body.result.requestState;
    }
    const ninth = await post(path, owner, 9, 'tools/call', {
      name: `${prefix}forever`,
      arguments: {},
      inputResponses: ADA,
      requestState: state,
    });
    expect(ninth.body).toMatchObject({ id: 9, error: { code: -32603, message: 'The MCP server still asked for input after 8 rounds' } });
  });
});

describe("the client's _meta onward to upstreams", () => {
  it('passes traceparent, tracestate and baggage to a 2026 upstream and to a 2025 one', async () => {
    deep.received.length = 0;
    await post('/mcp', owner, 1, 'tools/call', {
      name: 'deep__echo',
      arguments: { text: 'x' },
      _meta: { ...TRACE, other: 'kept home' },
    }).expect(200);
    expect(deep.received.at(-1)?.meta).toEqual(TRACE);
    await post('/mcp/servers/deep', owner, 2, 'prompts/get', { name: 'greet', arguments: { who: 'x' }, _meta: TRACE }).expect(200);
    expect(deep.received.at(-1)).toMatchObject({ method: 'prompts/get', meta: TRACE });
    const res = await post('/mcp', owner, 3, 'tools/call', { name: 'old__echo', arguments: { text: 'x' }, _meta: TRACE }).expect(200);
    expect(res.body.result.content[0].text).toBe('x');
    expect(old.seenMeta.at(-1)).toEqual(TRACE);
  });

  it("passes a 2025 client's trace context the same way, in a session and without one, for tools/call and prompts/get", async () => {
    const v1 = await connectClient(app.url, { Authorization: `Bearer ${owner.raw}` });
    const onServer = await connectClient(`${app.url}/servers/deep`, { Authorization: `Bearer ${owner.raw}` });
    try {
      await v1.callTool({ name: 'old__echo', arguments: { text: 'x' }, _meta: { ...TRACE, other: 'kept home' } });
      expect(old.seenMeta.at(-1)).toEqual(TRACE);
      deep.received.length = 0;
      await v1.callTool({ name: 'deep__echo', arguments: { text: 'x' }, _meta: TRACE });
      expect(deep.received.at(-1)).toMatchObject({ method: 'tools/call', meta: TRACE });
      await onServer.getPrompt({ name: 'greet', arguments: { who: 'x' }, _meta: TRACE });
      expect(deep.received.at(-1)).toMatchObject({ method: 'prompts/get', meta: TRACE });
      await v1.callTool({ name: 'old__echo', arguments: { text: 'x' } });
      expect(old.seenMeta.at(-1)).toBeUndefined();
    } finally {
      await Promise.all([v1.close(), onServer.close()]);
    }
    const stateless = await request(t.app)
      .post('/mcp')
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream')
      .set('Authorization', `Bearer ${owner.raw}`)
      .send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'old__echo', arguments: { text: 'y' }, _meta: TRACE } })
      .expect(200);
    expect(stateless.body.result.content[0].text).toBe('y');
    expect(old.seenMeta.at(-1)).toEqual(TRACE);
  });

  it('sends the upstream a logLevel only when the client sent one, and relays its log messages from that level up only then', async () => {
    const events = async (meta: Record<string, unknown>) => {
      const res = await post('/mcp', owner, 1, 'tools/call', { name: 'deep__log', arguments: {}, _meta: meta })
        .set('Accept', 'application/json, text/event-stream')
        .expect(200);
      return res.text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.slice(5)) as { method?: string; params?: { level: string; data: string } });
    };
    deep.received.length = 0;
    const silent = await events({});
    expect(deep.received.at(-1)?.logLevel).toBeUndefined();
    expect(silent.filter((m) => m.method === 'notifications/message')).toEqual([]);
    const told = await events({ 'io.modelcontextprotocol/logLevel': 'info' });
    expect(deep.received.at(-1)?.logLevel).toBe('info');
    expect(told.filter((m) => m.method === 'notifications/message').map((m) => m.params)).toEqual([
      { level: 'warning', data: 'deep: a warning' },
    ]);
  });
});

describe('2025 clients', () => {
  it('keep the autoFulfill relay in front of a 2026 upstream', async () => {
    const res = await request(t.app)
      .post('/mcp')
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream')
      .set('Authorization', `Bearer ${owner.raw}`)
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'deep__ask', arguments: {} } })
      .expect(200);
    expect(res.text).toContain('cannot relay');
  });
});
