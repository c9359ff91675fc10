import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTwoReplicas, TwoReplicas } from '../support/app-replicas';
import { mcpPost } from '../support/mcp-session-client';
import { startRoundRobinProxy, RoundRobinProxy } from '../support/round-robin-proxy';

jest.setTimeout(60_000);

let r: TwoReplicas;
let proxy: RoundRobinProxy;

beforeAll(async () => {
  r = await startTwoReplicas();
  proxy = await startRoundRobinProxy([r.aUrl, r.b.url]);
});
afterAll(async () => {
  await proxy?.close();
  await r?.close();
});

it('serves the official SDK client, which keeps the session id, through a round-robin proxy over two replicas', async () => {
  const res = await request(r.a.app)
    .post('/api/v1/api-keys')
    .set('Authorization', `Bearer ${r.a.userToken(randomUUID())}`)
    .send({ name: 'sdk', scopes: ['projects:read', 'projects:write'] })
    .expect(201);
  const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${res.body.raw_key}` } },
  });
  const client = new Client({ name: 'sdk-session-test', version: '1.0.0' });
  await client.connect(transport);
  const session = transport.sessionId!;
  expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });

  for (let i = 0; i < 3; i++) {
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('projects');
    const created = await client.callTool({ name: 'projects', arguments: { action: 'create', data: { name: `p${i}` } } });
    expect(created.isError).toBeFalsy();
  }
  // Both replicas served the session's POSTs.
  const posts = proxy.routed.filter((x) => x.method === 'POST');
  expect(new Set(posts.map((x) => x.backend))).toEqual(new Set([0, 1]));

  await transport.terminateSession();
  expect(proxy.routed.some((x) => x.method === 'DELETE')).toBe(true);
  for (const base of [r.aUrl, r.b.url]) {
    expect(
      (await mcpPost(base, res.body.raw_key, { jsonrpc: '2.0', id: 9, method: 'tools/list' }, { 'Mcp-Session-Id': session })).status,
    ).toBe(404);
  }
  await client.close();
});
