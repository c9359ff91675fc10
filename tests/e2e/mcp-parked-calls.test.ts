import { randomUUID } from 'node:crypto';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import request from 'supertest';
import { startTwoReplicas, TwoReplicas } from '../support/app-replicas';
import { makeKey, TestKey } from '../support/mcp-keys';
import { RelayUpstream, startRelayUpstream } from '../support/relay-upstream';

jest.setTimeout(90_000);

/**
 * A 2026-07-28 client in front of a 2025 upstream (the v1 SDK relay upstream,
 * with sessions) whose tools ask the client for input during the call:
 * keygate holds the upstream call open on the replica that took it, answers
 * the client input_required, and hands the retry's inputResponses (on either
 * replica) to the upstream's waiting request.
 */
const V = '2026-07-28';
/** Short, so that the unanswered call is cancelled within the test; every answered round trip takes far less. */
const CALL_TIMEOUT_MS = 4000;
const FULL = { sampling: {}, elicitation: { form: {} }, roots: {} };

let r: TwoReplicas;
let upstream: RelayUpstream;
let owner: TestKey;
let other: TestKey;

beforeAll(async () => {
  r = await startTwoReplicas({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_RELAY_CALL_TIMEOUT_MS: String(CALL_TIMEOUT_MS) });
  upstream = await startRelayUpstream({ prompts: true });
  owner = await makeKey(r.a);
  other = await makeKey(r.a, [], owner.user);
  const res = await rpc(r.aUrl, '/mcp', owner, {
    id: 1,
    method: 'tools/call',
    params: { name: 'mcp_servers', arguments: { action: 'create', data: { name: 'relay', url: upstream.url } } },
  });
  expect(res.body.result?.isError).toBeFalsy();
});
afterAll(async () => {
  await upstream?.stop();
  await r?.close();
});

const meta = (capabilities: Record<string, unknown>) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

interface RpcAnswer {
  status: number;
  body: { id?: unknown; result?: Record<string, any>; error?: { code: number; message: string; data?: any } };
}

/** One raw 2026 POST (JSON answer), as a client in manual mode sends it. */
async function rpc(
  base: string,
  path: string,
  key: TestKey,
  body: { id: unknown; method: string; params: Record<string, unknown> },
  capabilities: Record<string, unknown> = FULL,
): Promise<RpcAnswer> {
  const name = (body.params.name ?? body.params.uri) as string | undefined;
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: `Bearer ${key.raw}`,
      'mcp-protocol-version': V,
      'mcp-method': body.method,
      ...(name !== undefined && { 'mcp-name': name }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...body, params: { ...body.params, _meta: meta(capabilities) } }),
  });
  return { status: res.status, body: (await res.json()) as RpcAnswer['body'] };
}

/**
 * The SDK v2 client pinned to 2026-07-28, fulfilling input requests itself
 * (sampling "4", elicitation Ada, one root); its first tools/call goes to
 * replica A, every retry (a tools/call with inputResponses) to replica B.
 */
async function modernClient(path: string, capabilities: Record<string, unknown> = FULL) {
  const routed: string[] = [];
  const split = (input: string | URL | Request, init?: RequestInit) => {
    const retry = typeof init?.body === 'string' && init.body.includes('"inputResponses"');
    const url = new URL(String(input instanceof Request ? input.url : input));
    const to = new URL(`${url.pathname}${url.search}`, retry ? r.b.url : r.aUrl);
    if (typeof init?.body === 'string' && /"(tools\/call|resources\/read|prompts\/get)"/.test(init.body)) routed.push(retry ? 'B' : 'A');
    return fetch(to, init);
  };
  const client = new ClientV2({ name: 'parked-test', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: { pin: V } } });
  if ('sampling' in capabilities)
    client.setRequestHandler(
      'sampling/createMessage',
      async () => ({ role: 'assistant', content: { type: 'text', text: '4' }, model: 'test' }) as never,
    );
  if ('elicitation' in capabilities)
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada' } }) as never);
  if ('roots' in capabilities) client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
  await client.connect(
    new TransportV2(new URL(`${r.aUrl}${path}`), { fetch: split, requestInit: { headers: { Authorization: `Bearer ${owner.raw}` } } }),
  );
  return { client, routed };
}

const textOf = (result: unknown) => JSON.parse((result as { content: { text: string }[] }).content[0].text);

const calledEvents = async (tool: string) =>
  await r.a.db.dataSource.query<{ details: Record<string, unknown> }[]>(
    `SELECT details FROM audit_events WHERE user_id = $1 AND action = 'tool.called' AND details->>'tool' = $2 ORDER BY seq`,
    [owner.user, tool],
  );

async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each([
  ['/mcp', 'relay__'],
  ['/mcp/servers/relay', ''],
])('%s, a 2026 client in front of a 2025 upstream that asks for input', (path, prefix) => {
  it("fulfils the upstream's elicitation, sampling and roots requests through input_required, each retry on the other replica", async () => {
    const { client, routed } = await modernClient(path);
    expect(client.getProtocolEra()).toBe('modern');
    const declaredBefore = upstream.declared.length;
    expect(textOf(await client.callTool({ name: `${prefix}elicit`, arguments: {} }))).toEqual({
      action: 'accept',
      content: { name: 'Ada' },
    });
    expect(textOf(await client.callTool({ name: `${prefix}sample`, arguments: {} }))).toEqual({ type: 'text', text: '4' });
    expect(textOf(await client.callTool({ name: `${prefix}roots`, arguments: {} }))).toEqual({
      roots: [{ uri: 'file:///work', name: 'work' }],
    });
    expect(routed).toEqual(['A', 'B', 'A', 'B', 'A', 'B']);
    // Each call's upstream session was opened declaring what the client declared (and keygate relays).
    expect(upstream.declared.slice(declaredBefore)).toContainEqual(
      expect.objectContaining({ sampling: {}, elicitation: { form: {} }, roots: {} }),
    );
    await client.close();
  });

  it('fulfils the elicitation a resources/read and a prompts/get ask for the same way, each retry on the other replica', async () => {
    const { client, routed } = await modernClient(path);
    const read = await client.readResource({ uri: `${path === '/mcp' ? 'keygate://relay/' : ''}ask://name` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ action: 'accept', content: { name: 'Ada' } });
    const prompt = await client.getPrompt({ name: `${prefix}ask` });
    expect(JSON.parse((prompt.messages[0].content as { text: string }).text)).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(routed).toEqual(['A', 'B', 'A', 'B']);
    await client.close();
  });

  it("asks for nothing the client did not declare: the upstream's request is refused and the call is a tool error", async () => {
    const { client, routed } = await modernClient(path, { elicitation: {} });
    const result = await client.callTool({ name: `${prefix}sample`, arguments: {} });
    expect(result.isError).toBe(true);
    expect(routed).toEqual(['A']);
    await client.close();
  });
});

describe('the wire of a parked call (a client in manual mode)', () => {
  const first = (key: TestKey, base = r.aUrl) =>
    rpc(base, '/mcp', key, { id: 'first', method: 'tools/call', params: { name: 'relay__elicit', arguments: {} } });
  const retry = (key: TestKey, state: unknown, base = r.b.url, path = '/mcp', name = 'relay__elicit') =>
    rpc(base, path, key, {
      id: 'again',
      method: 'tools/call',
      params: {
        name,
        arguments: {},
        requestState: state,
        inputResponses: { 'keygate-1': { action: 'accept', content: { name: 'Grace' } } },
      },
    });

  it("answers input_required with the upstream's request under keygate's key and an opaque state, refused when altered or moved, taken once on the other replica", async () => {
    const before = (await calledEvents('relay__elicit')).length;
    const asked = await first(owner);
    expect(asked.status).toBe(200);
    expect(asked.body.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'keygate-1': { method: 'elicitation/create', params: { mode: 'form', message: 'Your name?' } } },
    });
    const state = asked.body.result!.requestState as string;
    expect(typeof state).toBe('string');
    // Opaque: no readable segment tells the call's id or round.
    for (const part of state.split(/[^A-Za-z0-9+/=_-]/)) expect(Buffer.from(part, 'base64').toString('latin1')).not.toMatch(/"[krd]":/);

    const tampered = `${state.slice(0, -4)}${state.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    for (const refused of [
      await retry(owner, tampered),
      await retry(other, state),
      await retry(owner, state, r.b.url, '/mcp/servers/relay', 'elicit'),
      await retry(owner, 'not a state'),
    ]) {
      expect(refused.body).toMatchObject({ id: 'again', error: { code: -32602, message: 'Invalid or expired requestState' } });
    }
    // Nothing above reached the held call: the rightful retry, on the other replica, still finishes it.
    const done = await retry(owner, state);
    expect(done.body).toMatchObject({ id: 'again', result: { resultType: 'complete' } });
    expect(textOf(done.body.result)).toEqual({ action: 'accept', content: { name: 'Grace' } });
    // One audit event for the whole call, written by the replica that held it when it ended.
    await until(async () => (await calledEvents('relay__elicit')).length > before, 5000);
    expect((await calledEvents('relay__elicit')).length).toBe(before + 1);

    // The same state again: the call is over, a clear error.
    const replayed = await retry(owner, state);
    expect(replayed.body).toMatchObject({ id: 'again', error: { code: -32602, data: { reason: 'unknown' } } });
    expect(replayed.body.error!.message).toMatch(/is over/);
  });

  it('runs the tool gate again on each retry: a key narrowed meanwhile is refused 403 on the other replica', async () => {
    const key = await makeKey(r.a, ['mcp_servers:read', 'mcp_servers:write'], owner.user);
    const asked = await first(key);
    expect(asked.body.result).toMatchObject({ resultType: 'input_required' });
    await request(r.a.app)
      .patch(`/api/v1/api-keys/${key.id}`)
      .set('Authorization', `Bearer ${r.a.userToken(owner.user)}`)
      .send({ scopes: ['mcp_servers:read'] })
      .expect(200);
    let refused: RpcAnswer | undefined;
    await until(async () => (refused = await retry(key, asked.body.result!.requestState)).status === 403, 5000);
    expect(refused!.body).toMatchObject({ id: 'again', error: { code: -32003 } });
    // The refused round took nothing: widened again, the key's retry finishes the call.
    await request(r.a.app)
      .patch(`/api/v1/api-keys/${key.id}`)
      .set('Authorization', `Bearer ${r.a.userToken(owner.user)}`)
      .send({ scopes: ['mcp_servers:read', 'mcp_servers:write'] })
      .expect(200);
    let done: RpcAnswer | undefined;
    await until(async () => (done = await retry(key, asked.body.result!.requestState)).status === 200, 5000);
    expect(textOf(done!.body.result)).toEqual({ action: 'accept', content: { name: 'Grace' } });
  });

  it('cancels the upstream call when the client does not come back by MCP_RELAY_CALL_TIMEOUT_MS', async () => {
    const abortedBefore = upstream.aborted.filter((name) => name === 'elicit').length;
    const eventsBefore = (await calledEvents('relay__elicit')).length;
    const asked = await first(owner);
    expect(asked.body.result).toMatchObject({ resultType: 'input_required' });
    await until(() => upstream.aborted.filter((name) => name === 'elicit').length > abortedBefore, CALL_TIMEOUT_MS + 10_000);
    // The call ended as a failure, audited once.
    await until(async () => (await calledEvents('relay__elicit')).length > eventsBefore, 5000);
    const late = await retry(owner, asked.body.result!.requestState, r.aUrl);
    expect(late.body).toMatchObject({ error: { code: -32602 } });
  });
});

describe('the wire of a parked resources/read', () => {
  const uri = 'keygate://relay/ask://name';
  const answers = { 'keygate-1': { action: 'accept', content: { name: 'Grace' } } };
  const retry = (state: unknown, method = 'resources/read', params: Record<string, unknown> = { uri }) =>
    rpc(r.b.url, '/mcp', owner, { id: 'again', method, params: { ...params, requestState: state, inputResponses: answers } });

  it("answers input_required with the upstream's request, its state bound to the URI, and reads on the other replica", async () => {
    const asked = await rpc(r.aUrl, '/mcp', owner, { id: 'first', method: 'resources/read', params: { uri } });
    expect(asked.status).toBe(200);
    expect(asked.body.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'keygate-1': { method: 'elicitation/create', params: { mode: 'form', message: 'Your name?' } } },
    });
    const state = asked.body.result!.requestState as string;
    for (const refused of [
      await retry(state, 'resources/read', { uri: 'keygate://relay/note://a' }),
      await retry(state, 'prompts/get', { name: 'relay__ask' }),
    ]) {
      expect(refused.body).toMatchObject({ id: 'again', error: { code: -32602, message: 'Invalid or expired requestState' } });
    }
    const done = await retry(state);
    expect(done.body).toMatchObject({ id: 'again', result: { resultType: 'complete', contents: [{ uri }] } });
    expect(JSON.parse(done.body.result!.contents[0].text)).toEqual({ action: 'accept', content: { name: 'Grace' } });
  });

  it("asks the URI's resource_scopes again on each retry: a key narrowed meanwhile is refused, the call still held for it widened again", async () => {
    const guarded = await rpc(r.aUrl, '/mcp', owner, {
      id: 1,
      method: 'tools/call',
      params: {
        name: 'mcp_servers',
        arguments: {
          action: 'create',
          data: {
            name: 'guarded',
            url: upstream.url,
            resource_scopes: { 'ask://name': ['chat:read'] },
          },
        },
      },
    });
    expect(guarded.body.result?.isError).toBeFalsy();
    const key = await makeKey(r.a, ['chat:read'], owner.user);
    const at = 'keygate://guarded/ask://name';
    const asked = await rpc(r.aUrl, '/mcp', key, { id: 'first', method: 'resources/read', params: { uri: at } });
    expect(asked.body.result).toMatchObject({ resultType: 'input_required' });
    const again = () =>
      rpc(r.b.url, '/mcp', key, {
        id: 'again',
        method: 'resources/read',
        params: { uri: at, requestState: asked.body.result!.requestState, inputResponses: answers },
      });
    const scopes = (list: string[]) =>
      request(r.a.app)
        .patch(`/api/v1/api-keys/${key.id}`)
        .set('Authorization', `Bearer ${r.a.userToken(owner.user)}`)
        .send({ scopes: list })
        .expect(200);
    await scopes(['mcp_servers:read']);
    let refused: RpcAnswer | undefined;
    await until(async () => (refused = await again()).body.error !== undefined, 5000);
    // The first read's own answer for a URI the key may not read (not "the call is over": the retry took nothing).
    expect(refused!.body).toMatchObject({ id: 'again', error: { code: -32602, message: `Resource not found: ${at}`, data: { uri: at } } });
    await scopes(['chat:read']);
    let done: RpcAnswer | undefined;
    await until(async () => (done = await again()).body.result !== undefined, 5000);
    expect(JSON.parse(done!.body.result!.contents[0].text)).toEqual({ action: 'accept', content: { name: 'Grace' } });
  });

  it('a prompts/get without declared capabilities is refused by the upstream as before: an error, no input_required', async () => {
    const res = await rpc(r.aUrl, '/mcp', owner, { id: 'p', method: 'prompts/get', params: { name: 'relay__ask' } }, {});
    expect(res.body.error).toBeDefined();
    expect(res.body.result).toBeUndefined();
  });
});

describe('a 2025 client is unchanged', () => {
  it("a stateless 2025 request still has no relay: the upstream's request is refused, a tool error", async () => {
    const res = await request(r.a.app)
      .post('/mcp')
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json')
      .set('Authorization', `Bearer ${owner.raw}`)
      .send({ jsonrpc: '2.0', id: randomUUID(), method: 'tools/call', params: { name: 'relay__elicit', arguments: {} } })
      .expect(200);
    // A stateless 2025 request has no session to carry a request: refused to the upstream, a tool error, as before.
    expect(res.body.result.isError).toBe(true);
  });
});
