import http from 'node:http';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { FixtureUpstream } from '../../../scripts/conformance/fixture-upstream';

/**
 * What the conformance suite does not check of the fixture upstream but a
 * gateway test relies on: both revisions on one endpoint, the log threshold,
 * the resource update after a subscription, and sessions that are bounded
 * and unknown ids that are 404.
 */
describe('conformance fixture upstream', () => {
  let fixture: FixtureUpstream;
  const clients: Client[] = [];

  beforeAll(async () => {
    fixture = await FixtureUpstream.start();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await fixture.stop();
  });

  async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const client = new Client({ name: 'fixture-test', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
    const transport = new StreamableHTTPClientTransport(new URL(fixture.url));
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(fixture.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  it('serves a client pinned to 2026-07-28 on the same endpoint, statelessly, with the input-required tools', async () => {
    const client = new ClientV2(
      { name: 'fixture-test-2026', version: '1.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const transport = new TransportV2(new URL(fixture.url));
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(transport.sessionId).toBeUndefined();
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'test_simple_text',
          'test_missing_capability',
          'test_trigger_tool_change',
          'test_input_required_result_elicitation',
        ]),
      );
      const asked = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} }, { allowInputRequired: true });
      expect(asked).toMatchObject({ resultType: 'input_required', inputRequests: { user_name: { method: 'elicitation/create' } } });
    } finally {
      await client.close();
    }
  });

  it('sends a tool call its log messages on the call, at or above the level the session set', async () => {
    const { client } = await connect();
    const levels: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void levels.push(notification.params.level));
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(levels).toEqual([]);
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(levels).toEqual(['info', 'info', 'info']);
  });

  it('announces an update of the watched resource after a subscription', async () => {
    const { client } = await connect();
    const updated = new Promise<string>((resolve) =>
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)),
    );
    const before = await client.readResource({ uri: 'test://watched-resource' });
    await client.subscribeResource({ uri: 'test://watched-resource' });
    await expect(updated).resolves.toBe('test://watched-resource');
    const after = await client.readResource({ uri: 'test://watched-resource' });
    expect(after.contents[0]).not.toEqual(before.contents[0]);
  });

  it('answers 404 to an unknown session, 400 to a request outside any session, 403 to a foreign Host', async () => {
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': 'no-such-session' })).status).toBe(404);
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(400);
    // fetch drops a Host header it is given, so this one goes through node:http.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const url = new URL(fixture.url);
      http
        .request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: { host: 'evil.example.com', 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode);
          },
        )
        .on('error', reject)
        .end('{}');
    });
    expect(status).toBe(403);
  });

  it('decides SSE priming and stream closing by the version the session negotiated, not the header of each request', async () => {
    async function reconnectionCall(negotiate: string, header: string): Promise<string> {
      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: negotiate, capabilities: {}, clientInfo: { name: 't', version: '1' } },
      };
      const opened = await post(init);
      await opened.text();
      const headers = { 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': header };
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
      return (
        await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } }, headers)
      ).text();
    }
    // The pinned suite's SEP-1699 probe: a 2025-11-25 session, a 2025-03-26 header. The stream is primed, then closed before the result.
    const resumable = await reconnectionCall('2025-11-25', '2025-03-26');
    expect(resumable).toMatch(/^id: \S+\nretry: 500\ndata: \n/);
    expect(resumable).not.toContain('"result"');
    // A client that negotiated an older version cannot resume: no priming, and the result comes on the open stream.
    const older = await reconnectionCall('2025-06-18', '2025-11-25');
    expect(older).not.toContain('retry:');
    expect(older).toContain('"result"');
  });

  it('ends a session on DELETE: its id is 404 afterwards', async () => {
    const { transport } = await connect();
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    expect(
      (await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' })).status,
    ).toBe(404);
  });

  it('keeps at most 64 sessions: opening more ends the oldest', async () => {
    const { client: oldest, transport } = await connect();
    await oldest.ping();
    for (let i = 0; i < 64; i++) await connect();
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect((await post(ping, { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-11-25' })).status).toBe(404);
  });
});
