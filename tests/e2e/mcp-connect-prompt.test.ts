import { randomBytes } from 'node:crypto';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { listen } from '../support/mcp-client';
import { makeKey, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

jest.setTimeout(60_000);

/**
 * A call to a user_secret server by a user with no connection (issue 27,
 * increment 4): a 2025-11-25 client that declared URL elicitation gets the
 * URL-elicitation-required error (-32042) naming the console's connect page;
 * a 2026-07-28 client that declared it gets input_required with that URL
 * elicitation, and its retry after the user connected runs the call; any other
 * client a tool error with the URL. Nothing reaches the upstream before the
 * connection exists.
 */
const BASE = '/api/v1/mcp-servers';
const personal = { type: 'user_secret', header: 'Authorization', prefix: 'Bearer ' };
const URL_ELICITATION = { elicitation: { url: {} } };

let t: TestApp;
let upstream: UpstreamMcpServer;
let server: { url: string; close(): Promise<void> };
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '2000' });
  upstream = await startUpstream();
  server = await listen(t.app);
});
afterAll(async () => {
  await server?.close();
  await upstream?.stop();
  await t?.close();
});

/** A user with a key and a user_secret server `personal` of their own, not connected. */
async function unconnectedUser(): Promise<{ key: TestKey; serverId: string; connectPage: string }> {
  const key = await makeKey(t);
  const res = await request(t.app)
    .post(BASE)
    .set('Authorization', `Bearer ${t.userToken(key.user)}`)
    .send({ name: 'personal', url: upstream.url, auth: personal })
    .expect(201);
  const serverId = res.body.id as string;
  return { key, serverId, connectPage: `/console/#/servers/${serverId}/connect` };
}
async function connect(key: TestKey, serverId: string, secret: string): Promise<void> {
  await request(t.app)
    .post(`${BASE}/${serverId}/connection`)
    .set('Authorization', `Bearer ${t.userToken(key.user)}`)
    .send({ secret })
    .expect(201);
}
/** The Authorization headers the upstream saw while `work` ran. */
async function seenDuring(work: () => Promise<unknown>): Promise<unknown[]> {
  const before = upstream.seenHeaders.length;
  await work();
  return upstream.seenHeaders.slice(before).map((headers) => headers.authorization);
}
const endpoint = (path: string) => server.url.replace(/\/mcp$/, path);

/** A 2025-11-25 session of the v1 SDK client, declaring `capabilities` at initialize. */
async function legacyClient(key: TestKey, path: string, capabilities: Record<string, unknown>): Promise<Client> {
  const client = new Client({ name: 'connect-test', version: '1.0.0' }, { capabilities });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(endpoint(path)), { requestInit: { headers: { Authorization: `Bearer ${key.raw}` } } }),
  );
  return client;
}

/** The v2 SDK client pinned to 2026-07-28; `onElicit` answers a URL elicitation. */
async function modernClient(key: TestKey, path: string, capabilities: Record<string, unknown>, onElicit?: (params: any) => Promise<void>) {
  const client = new ClientV2(
    { name: 'connect-test', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  if (onElicit)
    client.setRequestHandler('elicitation/create', async (req) => {
      await onElicit(req.params);
      return { action: 'accept' } as never;
    });
  await client.connect(new TransportV2(new URL(endpoint(path)), { requestInit: { headers: { Authorization: `Bearer ${key.raw}` } } }));
  return client;
}

describe.each([
  ['/mcp', 'personal__echo'],
  ['/mcp/servers/personal', 'echo'],
])('a call on %s without a connection', (path, tool) => {
  it('is, for a 2025-11-25 client that declared URL elicitation, -32042 with the connect page, and nothing is sent upstream', async () => {
    const { key, connectPage } = await unconnectedUser();
    const client = await legacyClient(key, path, URL_ELICITATION);
    let failure: any;
    const seen = await seenDuring(async () => {
      failure = await client.callTool({ name: tool, arguments: { text: 'hi' } }).catch((error: unknown) => error);
    });
    await client.close();
    expect(seen).toEqual([]);
    expect(failure.code).toBe(-32042);
    // The tool did not run: its event says so.
    const events = await t.db.dataSource.query(`SELECT details FROM audit_events WHERE user_id = $1 AND action = 'tool.called'`, [
      key.user,
    ]);
    expect(events.map((event: { details: { outcome: string } }) => event.details.outcome)).toEqual(['error']);
    expect(failure.data.elicitations).toEqual([
      {
        mode: 'url',
        elicitationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        // The console's page on the origin the client reached keygate at: an elicitation's URL is absolute.
        url: endpoint(connectPage),
        message: 'Connect your account to the MCP server personal to use its tools',
      },
    ]);
  });

  it('is, for a 2025-11-25 client that did not declare it, a tool error naming the connect page', async () => {
    const { key, connectPage } = await unconnectedUser();
    const client = await legacyClient(key, path, { elicitation: {} });
    let result: any;
    const seen = await seenDuring(async () => (result = await client.callTool({ name: tool, arguments: { text: 'hi' } })));
    await client.close();
    expect(seen).toEqual([]);
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe(
      `The MCP server personal needs your own credential: connect to it at ${connectPage}, then call again`,
    );
  });

  it('is, for a 2026-07-28 client that declared it, input_required with the connect page; its retry after the user connects runs the call', async () => {
    const { key, serverId, connectPage } = await unconnectedUser();
    const secret = `sk-${randomBytes(12).toString('hex')}`;
    const asked: unknown[] = [];
    const client = await modernClient(key, path, URL_ELICITATION, async (params) => {
      asked.push(params);
      // Nothing went upstream before the user connected.
      expect(upstream.seenHeaders.some((headers) => headers.authorization === `Bearer ${secret}`)).toBe(false);
      await connect(key, serverId, secret);
    });
    let result: any;
    const seen = await seenDuring(async () => (result = await client.callTool({ name: tool, arguments: { text: 'hi' } })));
    await client.close();
    expect(asked).toEqual([
      { mode: 'url', url: endpoint(connectPage), message: 'Connect your account to the MCP server personal to use its tools' },
    ]);
    expect(result.isError).toBeFalsy();
    expect(result.content[0].text).toBe('hi');
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set([`Bearer ${secret}`]));
  });

  it('is, for a 2026-07-28 client that did not declare it, a tool error naming the connect page', async () => {
    const { key, connectPage } = await unconnectedUser();
    const client = await modernClient(key, path, {});
    let result: any;
    const seen = await seenDuring(async () => (result = await client.callTool({ name: tool, arguments: { text: 'hi' } })));
    await client.close();
    expect(seen).toEqual([]);
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe(
      `The MCP server personal needs your own credential: connect to it at ${connectPage}, then call again`,
    );
  });
});

describe('a 2026-07-28 retry with the connect state', () => {
  /** One raw 2026 tools/call (JSON answer) declaring URL elicitation, as a client in manual mode sends it. */
  async function call(key: TestKey, extra: Record<string, unknown> = {}) {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${key.raw}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'personal__echo',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'personal__echo',
          arguments: { text: 'hi' },
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': URL_ELICITATION },
          ...extra,
        },
      }),
    });
    return (await res.json()) as { result?: any; error?: any };
  }

  it('asks again while the user has not connected, and runs the call once they have; the state is theirs only', async () => {
    const { key, serverId } = await unconnectedUser();
    // The same user's other key: the tool is there, the state is not its.
    const other = await makeKey(t, [], key.user);
    const secret = `sk-${randomBytes(12).toString('hex')}`;
    const first = (await call(key)).result;
    expect(first.resultType).toBe('input_required');
    const answers = { connect: { action: 'accept' } };
    const seen = await seenDuring(async () => {
      const again = (await call(key, { inputResponses: answers, requestState: first.requestState })).result;
      expect(again.resultType).toBe('input_required');
      expect(again.inputRequests.connect.params.mode).toBe('url');
      // Sealed for this key, endpoint and tool: another key's retry with it is refused.
      expect((await call(other, { inputResponses: answers, requestState: first.requestState })).error).toMatchObject({
        code: -32602,
        data: { reason: 'invalid_request_state' },
      });
    });
    expect(seen).toEqual([]);
    await connect(key, serverId, secret);
    const done = (await call(key, { inputResponses: answers, requestState: first.requestState })).result;
    expect(done.isError).toBeFalsy();
    expect(done.content[0].text).toBe('hi');
  });
});

describe('a resources/read or prompts/get on /mcp without a connection', () => {
  it('is, for a 2025-11-25 client that declared URL elicitation, -32042 with the connect page; after connecting it reads with the secret', async () => {
    const { key, serverId, connectPage } = await unconnectedUser();
    const client = await legacyClient(key, '/mcp', URL_ELICITATION);
    const failures: any[] = [];
    const seen = await seenDuring(async () => {
      failures.push(await client.readResource({ uri: 'keygate://personal/file:///notes/a.txt' }).catch((error: unknown) => error));
      failures.push(await client.getPrompt({ name: 'personal__greet', arguments: { who: 'you' } }).catch((error: unknown) => error));
    });
    expect(seen).toEqual([]);
    for (const failure of failures) {
      expect(failure.code).toBe(-32042);
      expect(failure.data.elicitations).toEqual([expect.objectContaining({ mode: 'url', url: endpoint(connectPage) })]);
    }
    const secret = `sk-${randomBytes(8).toString('hex')}`;
    await connect(key, serverId, secret);
    const after = await seenDuring(async () => {
      const read = await client.readResource({ uri: 'keygate://personal/file:///notes/a.txt' });
      expect(read.contents[0]).toMatchObject({ text: 'upstream: file:///notes/a.txt' });
    });
    await client.close();
    expect(new Set(after)).toEqual(new Set([`Bearer ${secret}`]));
  });

  it('is, for a client that did not declare it, an error naming the connect page', async () => {
    const { key, connectPage } = await unconnectedUser();
    const client = await legacyClient(key, '/mcp', {});
    const failure: any = await client.readResource({ uri: 'keygate://personal/file:///notes/a.txt' }).catch((error: unknown) => error);
    await client.close();
    expect(failure.code).toBe(-32000);
    expect(failure.message).toContain(`connect to it at ${connectPage}`);
  });
});
