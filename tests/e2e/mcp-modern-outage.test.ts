import request from 'supertest';
import { AuthorizeToolCall } from '../../src/application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { CallTool } from '../../src/application/use-cases/gateway/tools/call-tool.use-case';
import { ListTools } from '../../src/application/use-cases/gateway/list-tools/list-tools.use-case';
import { ChargeToolCalls } from '../../src/application/use-cases/usage-limits/charge-tool-calls.use-case';
import { CompleteUpstreamArgument } from '../../src/application/use-cases/gateway/upstream-content/complete-upstream-argument.use-case';
import { GetUpstreamPrompt } from '../../src/application/use-cases/gateway/upstream-content/get-upstream-prompt.use-case';
import { ListUpstreamPrompts } from '../../src/application/use-cases/gateway/upstream-content/list-upstream-prompts.use-case';
import { ListUpstreamResourceTemplates } from '../../src/application/use-cases/gateway/upstream-content/list-upstream-resource-templates.use-case';
import { ListUpstreamResources } from '../../src/application/use-cases/gateway/upstream-content/list-upstream-resources.use-case';
import { ReadUpstreamResource } from '../../src/application/use-cases/gateway/upstream-content/read-upstream-resource.use-case';
import { ListenCapabilities } from '../../src/adapters/mcp/modern/listen-capabilities';
import { ToolCallRecorder } from '../../src/adapters/mcp/tool-call-recorder';
import { DatabaseUnavailableError } from '../../src/domain/errors';
import { makeKey, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

jest.setTimeout(60_000);

/**
 * PostgreSQL going away during a 2026-07-28 request, once its body is read:
 * whichever gate, fast path or SDK handler meets the outage, the answer is
 * the one server/discover gives (mcp-modern.test.ts): 503, Retry-After: 1,
 * a JSON-RPC -32000 echoing the request's id, never a problem document, a
 * 500 or the database's own words. The outage is the race these tests can
 * stage: the key was read (from the hot path's cache), then the next read
 * fails as the store fails on an outage, with DatabaseUnavailableError.
 * What runs before the body is read (the key, the rate limit, the server
 * record of /mcp/servers/<name>) answers its problem document, as 2025 does.
 */
const V = '2026-07-28';
const UNAVAILABLE = { code: -32000, message: 'Service Unavailable: The database is not reachable; retry shortly' };
let t: TestApp;
let upstream: UpstreamMcpServer;
let owner: TestKey;
let chat: TestKey;
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '2000' });
  upstream = await startUpstream('one');
  owner = await makeKey(t);
  await request(t.app)
    .post('/api/v1/mcp-servers')
    .set('Authorization', `Bearer ${t.userToken(owner.user)}`)
    .send({
      name: 'files',
      url: upstream.url,
      tool_scopes: { secret: ['chat:read'] },
      resource_scopes: { 'file:///secret/{name}': ['chat:read'] },
      prompt_scopes: { vault: ['chat:read'] },
    })
    .expect(201);
  chat = await makeKey(t, ['chat:read'], owner.user);
});
afterAll(async () => {
  await upstream?.stop();
  await t?.close();
});

interface Post {
  path: string;
  key: TestKey;
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
  /** Besides the envelope. */
  meta?: Record<string, unknown>;
  headers?: Record<string, string>;
  accept?: string;
}
function post({ path, key, id, method, params = {}, meta = {}, headers = {}, accept = 'application/json, text/event-stream' }: Post) {
  const _meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {}, ...meta };
  return request(t.app)
    .post(path)
    .set('Content-Type', 'application/json')
    .set('Accept', accept)
    .set('Authorization', `Bearer ${key.raw}`)
    .set('MCP-Protocol-Version', V)
    .set('Mcp-Method', method)
    .set(headers)
    .send(JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } }));
}

/** Runs `act` while `target.execute` fails as on an outage; checks it was reached, and that the same request is served once it is back. */
async function duringOutage<R>(target: { prototype: { execute: (...args: never[]) => unknown } }, act: () => Promise<R>): Promise<R> {
  const spy = jest.spyOn(target.prototype, 'execute').mockRejectedValue(new DatabaseUnavailableError() as never);
  try {
    const result = await act();
    expect(spy).toHaveBeenCalled();
    return result;
  } finally {
    spy.mockRestore();
  }
}

function expectUnavailable(res: request.Response, id: string | number): void {
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe('1');
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({ jsonrpc: '2.0', id, error: UNAVAILABLE });
}

const secretCall = (id: string, key: TestKey = chat, meta: Record<string, unknown> = {}): Post => ({
  path: '/mcp/servers/files',
  key,
  id,
  method: 'tools/call',
  params: { name: 'secret', arguments: {} },
  meta,
  headers: { 'Mcp-Name': 'secret' },
});

describe('the gates after the body, before any handler', () => {
  it('answers a tools/call whose scope check meets the outage 503 with its id, not a problem document', async () => {
    const res = await duringOutage(AuthorizeToolCall, () => post(secretCall('gate-1')));
    expectUnavailable(res, 'gate-1');
    await post(secretCall('gate-2')).expect(200);
  });

  it('answers a refused tools/call whose denial cannot be recorded 503 with its id (the 403 waits for the event)', async () => {
    const forbidden: Post = {
      path: '/mcp/servers/files',
      key: chat,
      id: 'denied-1',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' } },
      headers: { 'Mcp-Name': 'echo' },
    };
    const spy = jest.spyOn(ToolCallRecorder.prototype, 'denied').mockRejectedValue(new DatabaseUnavailableError());
    try {
      expectUnavailable(await post(forbidden), 'denied-1');
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
    await post({ ...forbidden, id: 'denied-2' }).expect(403);
  });

  it('answers a tools/call whose quota charge meets the outage 503 with its id', async () => {
    const created = await request(t.app)
      .post('/api/v1/api-keys')
      .set('Authorization', `Bearer ${t.userToken(owner.user)}`)
      .send({ name: 'metered', scopes: ['chat:read'], quota: { remaining: 5, refill: null } })
      .expect(201);
    const metered = { id: created.body.id, raw: created.body.raw_key, user: owner.user };
    const res = await duringOutage(ChargeToolCalls, () => post(secretCall('quota-1', metered)));
    expectUnavailable(res, 'quota-1');
    await post(secretCall('quota-2', metered)).expect(200);
  });

  it('answers a subscriptions/listen that cannot read what the endpoint declares 503 with its id, before any stream', async () => {
    const listen: Post = {
      path: '/mcp/servers/files',
      key: chat,
      id: 'listen-1',
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true } },
    };
    const res = await duringOutage(ListenCapabilities, () => post(listen));
    expectUnavailable(res, 'listen-1');
  });
});

describe('tools', () => {
  it.each([
    ['/mcp', 'the fast path'],
    ['/mcp/servers/files', "the fast path with the upstream's serverInfo"],
  ])('answers tools/list on %s (%s) 503 with its id', async (path) => {
    const res = await duringOutage(ListTools, () => post({ path, key: chat, id: 'list-1', method: 'tools/list' }));
    expectUnavailable(res, 'list-1');
    await post({ path, key: chat, id: 'list-2', method: 'tools/list' }).expect(200);
  });

  it('answers a built-in tools/call (the fast path) 503 with its id', async () => {
    const call: Post = {
      path: '/mcp',
      key: owner,
      id: 7,
      method: 'tools/call',
      params: { name: 'mcp_servers', arguments: { action: 'list' } },
      headers: { 'Mcp-Name': 'mcp_servers' },
    };
    const res = await duringOutage(CallTool, () => post(call));
    expectUnavailable(res, 7);
    await post(call).expect(200);
  });

  it("answers an upstream tool's tools/call (the upstream fast path) 503 with its id", async () => {
    const res = await duringOutage(CallTool, () => post(secretCall('call-1')));
    expectUnavailable(res, 'call-1');
  });

  it('answers an upstream tools/call that asks for progress (the SDK leg, JSON) 503 with its id', async () => {
    const res = await duringOutage(CallTool, () => post(secretCall('call-2', chat, { progressToken: 'p' })));
    expectUnavailable(res, 'call-2');
    const back = await post(secretCall('call-3', chat, { progressToken: 'p' })).expect(200);
    expect(back.body.result.content[0].text).toBe('the secret');
  });

  it('answers a tools/call that may park (the client declares elicitation) 503 with its id', async () => {
    const declares = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const res = await duringOutage(CallTool, () => post(secretCall('park-1', chat, declares)));
    expectUnavailable(res, 'park-1');
    const back = await post(secretCall('park-2', chat, declares)).expect(200);
    expect(back.body.result.content[0].text).toBe('the secret');
  });

  it('answers in band, with its id, once the SDK leg answers as a stream: the 200 is sent by then', async () => {
    const res = await duringOutage(ListTools, () =>
      post({ path: '/mcp', key: chat, id: 'sse-1', method: 'tools/list', accept: 'text/event-stream' }),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const frames = res.text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)));
    expect(frames).toEqual([{ jsonrpc: '2.0', id: 'sse-1', error: UNAVAILABLE }]);
  });
});

describe('resources, prompts and completion (the SDK leg)', () => {
  const uri = 'file:///secret/s.txt';
  it.each([
    ['resources/list', ListUpstreamResources, {}, {}],
    ['resources/templates/list', ListUpstreamResourceTemplates, {}, {}],
    ['resources/read', ReadUpstreamResource, { uri }, { 'Mcp-Name': uri }],
    ['prompts/list', ListUpstreamPrompts, {}, {}],
    ['prompts/get', GetUpstreamPrompt, { name: 'vault' }, { 'Mcp-Name': 'vault' }],
    [
      'completion/complete',
      CompleteUpstreamArgument,
      { ref: { type: 'ref/resource', uri: 'file:///secret/{name}' }, argument: { name: 'name', value: 's' } },
      {},
    ],
  ] as const)('answers %s 503 with its id', async (method, useCase, params, headers) => {
    const ask = (id: string): Post => ({ path: '/mcp/servers/files', key: chat, id, method, params, headers });
    const res = await duringOutage(useCase, () => post(ask(`${method}-1`)));
    expectUnavailable(res, `${method}-1`);
    const back = await post(ask(`${method}-2`)).expect(200);
    expect(back.body).toMatchObject({ id: `${method}-2`, result: { resultType: 'complete' } });
  });
});
