import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { connectClient, listen } from '../support/mcp-client';
import { makeKey, TestKey } from '../support/mcp-keys';
import { PollingUpstream, RECONNECTION_TEXT, startPollingUpstream } from '../support/polling-upstream';
import { startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

/**
 * An upstream that answers tools/call with SSE, sends a priming event with
 * an id and `retry:`, closes the stream and delivers the result only on a
 * GET with Last-Event-ID (the conformance suite's reference server, scenario
 * server-sse-polling): keygate waits out `retry` (the spec's MUST), resumes
 * it and answers its own client, within the contact's bound.
 */
let t: TestApp;
let app: { url: string; close(): Promise<void> };
/** retry: 1000, so that a call takes about a second. */
let upstream: PollingUpstream;
/** retry: 5000, the reference server's, as long as the default MCP_UPSTREAM_TIMEOUT_MS. */
let slow: PollingUpstream;
let key: TestKey;
const clients: Client[] = [];
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8' });
  app = await listen(t.app);
  [upstream, slow] = await Promise.all([startPollingUpstream(1000), startPollingUpstream(5000)]);
  key = await makeKey(t);
  const setup = await clientOn('');
  for (const [name, url] of [
    ['polling', upstream.url],
    ['slow', slow.url],
  ]) {
    const created = await setup.callTool({ name: 'mcp_servers', arguments: { action: 'create', data: { name, url } } });
    expect(created.isError).toBeFalsy();
  }
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([upstream?.stop(), slow?.stop()]);
  await app?.close();
  await t?.close();
});

async function clientOn(path: string): Promise<Client> {
  const client = await connectClient(`${app.url}${path}`, { Authorization: `Bearer ${key.raw}` });
  clients.push(client);
  return client;
}
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

describe('an upstream that delivers a tools/call result only after a resumption (SEP-1699)', () => {
  it('answers the SDK client directly (the upstream itself behaves)', async () => {
    const client = new Client({ name: 'direct', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    clients.push(client);
    expect(text(await client.callTool({ name: 'test_reconnection', arguments: {} }))).toBe(RECONNECTION_TEXT);
  });

  it.each([
    ['/mcp/servers/polling', '/servers/polling', 'test_reconnection'],
    ['/mcp', '', 'polling__test_reconnection'],
  ])('is resumed by keygate and the result delivered on %s in a session', async (_path, path, tool) => {
    const before = upstream.resumptions;
    const client = await clientOn(path);
    const result = await client.callTool({ name: tool, arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe(RECONNECTION_TEXT);
    expect(upstream.resumptions).toBeGreaterThan(before);
  });

  it('is resumed for a call without a session, answered as JSON', async () => {
    const before = upstream.resumptions;
    const res = await request(t.app)
      .post('/mcp/servers/polling')
      .set('Authorization', `Bearer ${key.raw}`)
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } })
      .expect(200);
    expect(res.body.result.content[0].text).toBe(RECONNECTION_TEXT);
    expect(upstream.resumptions).toBeGreaterThan(before);
  });

  it('stays within MCP_UPSTREAM_TIMEOUT_MS when the upstream asks to wait as long: an error answer, not a hang', async () => {
    const res = await request(t.app)
      .post('/mcp/servers/slow')
      .set('Authorization', `Bearer ${key.raw}`)
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } })
      .expect(200);
    expect(res.body.result).toMatchObject({ isError: true });
    expect(res.body.result.content[0].text).not.toContain(RECONNECTION_TEXT);
  });
});
