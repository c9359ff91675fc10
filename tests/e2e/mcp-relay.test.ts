import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResult,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { startTwoReplicas, TwoReplicas } from '../support/app-replicas';
import { ACCEPT_BOTH, mcpPost, mcpRequest } from '../support/mcp-session-client';
import { startRelayUpstream, RelayUpstream } from '../support/relay-upstream';
import { startRoundRobinProxy, RoundRobinProxy } from '../support/round-robin-proxy';
import { startV2Upstream, V2Upstream } from '../support/v2-upstream';

jest.setTimeout(60_000);

let r: TwoReplicas;
let proxy: RoundRobinProxy;
let upstream: RelayUpstream;
/** Speaks 2026-07-28 only: asks for input in its results instead of by requests. */
let modern: V2Upstream;
let raw: string;
let user: string;
let keyId: string;

beforeAll(async () => {
  r = await startTwoReplicas({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8' });
  proxy = await startRoundRobinProxy([r.aUrl, r.b.url]);
  upstream = await startRelayUpstream();
  modern = await startV2Upstream('modern');
  user = randomUUID();
  const res = await request(r.a.app)
    .post('/api/v1/api-keys')
    .set('Authorization', `Bearer ${r.a.userToken(user)}`)
    .send({ name: 'relay', scopes: ['mcp_servers:read', 'mcp_servers:write'] })
    .expect(201);
  raw = res.body.raw_key;
  keyId = res.body.id;
  const setup = await sdkClient(r.aUrl, {});
  const created = await setup.client.callTool({
    name: 'mcp_servers',
    arguments: { action: 'create', data: { name: 'relay', url: upstream.url } },
  });
  expect(created.isError).toBeFalsy();
  expect(
    (await setup.client.callTool({ name: 'mcp_servers', arguments: { action: 'create', data: { name: 'modern', url: modern.url } } }))
      .isError,
  ).toBeFalsy();
  await setup.client.close();
});
afterAll(async () => {
  await upstream?.stop();
  await modern?.stop();
  await proxy?.close();
  await r?.close();
});

const FULL = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } };

/** The official SDK client with the relayed capabilities, answering sampling with "4", elicitation with Ada and roots with one root. */
async function sdkClient(base: string, capabilities: Record<string, unknown> = FULL) {
  const client = new Client({ name: 'relay-test', version: '1.0.0' }, { capabilities });
  const logs: unknown[] = [];
  if ('sampling' in capabilities)
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      content: { type: 'text', text: '4' },
      model: 'test',
    }));
  if ('elicitation' in capabilities)
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
  if ('roots' in capabilities)
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${raw}` } },
  });
  await client.connect(transport);
  return { client, transport, logs };
}

/** The tool.called events of relay__sample, oldest first. */
const sampleEvents = async () =>
  await r.a.db.dataSource.query<{ details: { duration_ms: number } }[]>(
    `SELECT details FROM audit_events WHERE user_id = $1 AND action = 'tool.called' AND details->>'tool' = 'relay__sample' ORDER BY seq`,
    [user],
  );

const textOf = (result: unknown) => JSON.parse(((result as CallToolResult).content[0] as { text: string }).text);

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Reads JSON-RPC messages from an SSE POST answer as they come. */
async function* sseMessages(res: Response): AsyncGenerator<Record<string, any>> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('');
      buffer = buffer.slice(end + 2);
      if (data !== '') yield JSON.parse(data);
    }
  }
}

async function initialize(base: string, capabilities: Record<string, unknown> = FULL): Promise<string> {
  const res = await mcpPost(base, raw, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw', version: '1' } },
  });
  expect(res.status).toBe(200);
  await res.text();
  return res.headers.get('mcp-session-id')!;
}

describe('the relay during a tools/call of an upstream tool, through a round-robin proxy over two replicas', () => {
  it("relays progress under the client's token and logging messages, before the result", async () => {
    const { client, logs } = await sdkClient(proxy.url);
    const progress: unknown[] = [];
    const result = await client.callTool({ name: 'relay__progress', arguments: {} }, undefined, {
      onprogress: (p) => void progress.push(p),
    });
    expect(textOf(result)).toBe('done');
    expect(progress).toEqual([
      { progress: 1, total: 2, message: 'step 1' },
      { progress: 2, total: 2, message: 'step 2' },
    ]);
    expect(logs).toEqual([{ level: 'info', logger: 'relay-upstream', data: 'working' }]);
    await client.close();
  });

  it("relays sampling, elicitation and roots with the client's answers going back, and declares only what the client declared", async () => {
    const { client } = await sdkClient(proxy.url);
    expect(textOf(await client.callTool({ name: 'relay__sample', arguments: {} }))).toEqual({ type: 'text', text: '4' });
    expect(textOf(await client.callTool({ name: 'relay__elicit', arguments: {} }))).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(textOf(await client.callTool({ name: 'relay__roots', arguments: {} }))).toEqual({
      roots: [{ uri: 'file:///work', name: 'work' }],
    });
    expect(upstream.declared.at(-1)).toEqual(FULL);
    await client.close();

    const plain = await sdkClient(proxy.url, {});
    const refused = await plain.client.callTool({ name: 'relay__sample', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(upstream.declared.at(-1)).toEqual({});
    await plain.client.close();
  });

  it("takes the client's answer POSTed to the other replica, and drops an answer to nothing it sent (202)", async () => {
    // Earlier tests' events are written in batches: wait for them before counting.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const earlier = (await sampleEvents()).length;
    const session = await initialize(r.aUrl);
    await (await mcpPost(r.aUrl, raw, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'Mcp-Session-Id': session })).text();
    const stray = await mcpPost(r.b.url, raw, { jsonrpc: '2.0', id: 'keygate-made-up', result: {} }, { 'Mcp-Session-Id': session });
    expect(stray.status).toBe(202);
    const res = await mcpPost(
      r.aUrl,
      raw,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'relay__sample', arguments: {} } },
      { 'Mcp-Session-Id': session },
    );
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const seen: Record<string, any>[] = [];
    for await (const message of sseMessages(res)) {
      seen.push(message);
      if (message.method === 'sampling/createMessage') {
        expect(String(message.id)).toMatch(/^keygate-/);
        // The client takes its time: the call's one audit event covers it.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const answer = await mcpPost(
          r.b.url,
          raw,
          { jsonrpc: '2.0', id: message.id, result: { role: 'assistant', content: { type: 'text', text: 'from B' }, model: 'm' } },
          { 'Mcp-Session-Id': session },
        );
        expect(answer.status).toBe(202);
      }
      if (message.id === 7) break;
    }
    expect(seen.map((m) => m.method ?? 'result')).toEqual(['sampling/createMessage', 'result']);
    expect(textOf(seen[1].result)).toEqual({ type: 'text', text: 'from B' });
    let rows = await sampleEvents();
    for (let i = 0; i < 100 && rows.length === earlier; i++)
      rows = await new Promise((resolve) => setTimeout(resolve, 50)).then(sampleEvents);
    expect(rows).toHaveLength(earlier + 1);
    expect(rows.at(-1)!.details.duration_ms).toBeGreaterThanOrEqual(300);
  });

  it('relays an error answer of the client as an error to the upstream', async () => {
    const session = await initialize(r.aUrl);
    const res = await mcpPost(
      r.aUrl,
      raw,
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'relay__elicit', arguments: {} } },
      { 'Mcp-Session-Id': session },
    );
    let result: Record<string, any> | undefined;
    for await (const message of sseMessages(res)) {
      if (message.method === 'elicitation/create') {
        await mcpPost(
          r.b.url,
          raw,
          { jsonrpc: '2.0', id: message.id, error: { code: -1, message: 'user said no' } },
          { 'Mcp-Session-Id': session },
        );
      }
      if (message.id === 8) result = message.result;
      if (message.id === 8) break;
    }
    expect(result?.isError).toBe(true);
    expect(JSON.stringify(result)).toContain('user said no');
  });

  it('cancels the upstream call when the client cancels', async () => {
    const { client } = await sdkClient(proxy.url);
    const before = upstream.cancelled;
    const controller = new AbortController();
    const call = client.callTool({ name: 'relay__slow', arguments: {} }, undefined, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort('enough');
    await expect(call).rejects.toThrow();
    await until(() => upstream.cancelled === before + 1);
    await client.close();
  });
});

describe("keygate's upstream sessions per client session", () => {
  it('reuses one upstream session across calls on both replicas: one initialize', async () => {
    const session = await initialize(r.aUrl);
    const before = upstream.initializes;
    for (const base of [r.aUrl, r.b.url, r.aUrl]) {
      const res = await mcpPost(
        base,
        raw,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'relay__echo', arguments: { n: 1 } } },
        { 'Mcp-Session-Id': session, Accept: 'application/json' },
      );
      expect(res.status).toBe(200);
      expect(textOf(((await res.json()) as { result: unknown }).result)).toEqual({ n: 1 });
    }
    expect(upstream.initializes).toBe(before + 1);
    // Nothing of the client's request reaches the upstream: neither its key nor its session id.
    for (const headers of upstream.seenHeaders) expect(JSON.stringify(headers)).not.toContain(raw);
  });

  it('keeps one upstream session when both replicas open one at the same time, ending the other', async () => {
    const session = await initialize(r.aUrl);
    const known = new Set(upstream.sessions.keys());
    const echo = (base: string) =>
      mcpPost(
        base,
        raw,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'relay__echo', arguments: {} } },
        { 'Mcp-Session-Id': session, Accept: 'application/json' },
      ).then((res) => res.text());
    await Promise.all([echo(r.aUrl), echo(r.b.url), echo(r.aUrl), echo(r.b.url)]);
    await until(() => [...upstream.sessions.keys()].filter((id) => !known.has(id)).length === 1);
  });

  it('reads resources within the same upstream session, on both replicas', async () => {
    const session = await initialize(r.aUrl);
    const before = upstream.initializes;
    for (const base of [r.aUrl, r.b.url]) {
      const res = await mcpPost(
        base,
        raw,
        { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'keygate://relay/note://a' } },
        { 'Mcp-Session-Id': session, Accept: 'application/json' },
      );
      expect(((await res.json()) as { result: { contents: { text: string }[] } }).result.contents[0].text).toBe('read note://a');
    }
    expect(upstream.initializes).toBe(before + 1);
  });

  it('opens a fresh upstream session once when the upstream forgot it (404)', async () => {
    const session = await initialize(r.aUrl);
    const echo = (base: string) =>
      mcpPost(
        base,
        raw,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'relay__echo', arguments: {} } },
        { 'Mcp-Session-Id': session, Accept: 'application/json' },
      ).then((res) => res.json() as Promise<{ result: CallToolResult }>);
    expect((await echo(r.aUrl)).result.isError).toBeFalsy();
    const before = upstream.initializes;
    for (const transport of upstream.sessions.values()) await transport.close();
    expect((await echo(r.b.url)).result.isError).toBeFalsy();
    expect((await echo(r.aUrl)).result.isError).toBeFalsy();
    expect(upstream.initializes).toBe(before + 1);
  });

  it('closes the upstream session when the client DELETEs its session', async () => {
    const { client, transport } = await sdkClient(proxy.url);
    await client.callTool({ name: 'relay__echo', arguments: {} });
    const held = [...upstream.sessions.keys()];
    await transport.terminateSession();
    await until(() => upstream.deletes.some((id) => held.includes(id)));
    await client.close();
  });

  it("sends the client's logging/setLevel to the upstream session it uses", async () => {
    const { client } = await sdkClient(proxy.url);
    await client.callTool({ name: 'relay__echo', arguments: {} });
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'relay__echo', arguments: {} });
    expect(upstream.levels.at(-1)).toBe('warning');
    await client.close();
  });

  it("relays a 2026-07-28-only upstream's input request the same way, the answer POSTed to the other replica", async () => {
    const session = await initialize(r.aUrl);
    await (await mcpPost(r.aUrl, raw, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'Mcp-Session-Id': session })).text();
    modern.clientCapabilities.length = 0;
    const res = await mcpPost(
      r.aUrl,
      raw,
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'modern__think', arguments: {} } },
      { 'Mcp-Session-Id': session },
    );
    const seen: Record<string, any>[] = [];
    for await (const message of sseMessages(res)) {
      seen.push(message);
      if (message.method === 'sampling/createMessage') {
        expect(String(message.id)).toMatch(/^keygate-/);
        expect(message.params).toMatchObject({ messages: [{ role: 'user', content: { type: 'text', text: '2 + 2?' } }] });
        const answer = await mcpPost(
          r.b.url,
          raw,
          { jsonrpc: '2.0', id: message.id, result: { role: 'assistant', content: { type: 'text', text: 'from B' }, model: 'm' } },
          { 'Mcp-Session-Id': session },
        );
        expect(answer.status).toBe(202);
      }
      if (message.id === 9) break;
    }
    expect(seen.map((m) => m.method ?? 'result')).toEqual(['sampling/createMessage', 'result']);
    expect(seen[1].result).toEqual({ content: [{ type: 'text', text: 'modern: the model said {"type":"text","text":"from B"}' }] });
    // The first round and its retry both declared what the client declared.
    expect(modern.clientCapabilities).toEqual([FULL, FULL]);
  });

  it('keeps stateless calls stateless: a short contact each, nothing stored', async () => {
    const rows = async () => (await r.a.db.dataSource.query('SELECT count(*)::int AS count FROM mcp_upstream_sessions'))[0].count as number;
    const [before, initializes] = [await rows(), upstream.initializes];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${r.aUrl}/mcp`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${raw}`, 'Content-Type': 'application/json', Accept: ACCEPT_BOTH },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'relay__echo', arguments: {} } }),
      });
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      await res.text();
    }
    expect(upstream.initializes).toBe(initializes + 2);
    expect(await rows()).toBe(before);
    expect((await mcpRequest(r.aUrl, raw, 'DELETE')).status).toBe(405);
  });

  it("closes the upstream session when the client session ends by its key's revocation", async () => {
    const session = await initialize(r.aUrl);
    const known = new Set(upstream.sessions.keys());
    await (
      await mcpPost(
        r.b.url,
        raw,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'relay__echo', arguments: {} } },
        { 'Mcp-Session-Id': session, Accept: 'application/json' },
      )
    ).text();
    const held = [...upstream.sessions.keys()].filter((id) => !known.has(id));
    expect(held).toHaveLength(1);
    await request(r.a.app)
      .delete(`/api/v1/api-keys/${keyId}`)
      .set('Authorization', `Bearer ${r.a.userToken(user)}`)
      .expect(204);
    await until(() => upstream.deletes.includes(held[0]));
  });
});
