import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { initialize, mcpPost, readSse, SseEvent } from '../support/mcp-session-client';
import { NGINX_CANDIDATES, RunningNginx, startNginx } from '../support/nginx';
import { loadBalancerServer } from '../support/nginx-load-balancer';
import { startRelayUpstream, RelayUpstream } from '../support/relay-upstream';
import { eventually } from '../support/replica';
import { serviceFixture } from '../support/service-fixture';
import { ROOT, ServiceProcess, startService, waitForListening } from '../support/service-process';
import { describeWithProgram, installedAt } from '../support/system-program';

jest.setTimeout(120_000);

const fixture = serviceFixture('load-balancer');
let upstream: RelayUpstream;
let replicas: ServiceProcess[] = [];
let nginx: RunningNginx | undefined;
let admin: Record<string, string>;

const replicaEnv = () =>
  fixture.env({
    SECRETS_KEY: Buffer.alloc(32, 3).toString('base64'),
    MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8',
    TRUST_PROXY: 'loopback',
    LOG_LEVEL: 'info',
  });

const portOf = (replica: ServiceProcess) => Number(new URL(replica.baseUrl).port);

describeWithProgram(
  'nginx',
  installedAt(NGINX_CANDIDATES),
  'apt-get install -y nginx',
)('three replicas behind NGINX', () => {
  beforeAll(async () => {
    upstream = await startRelayUpstream();
    replicas = await Promise.all([0, 1, 2].map(() => waitForListening(startService(replicaEnv()))));
    nginx = await startNginx(loadBalancerServer(replicas.map(portOf)));
    admin = { Authorization: `Bearer ${fixture.idp.token({ sub: crypto.randomUUID() })}`, 'Content-Type': 'application/json' };
    // The owner's relay upstream: its tools are `relay__*` for every key of this user.
    const owner = await createKey('owner', null);
    const created = await mcpPost(nginx.url, owner.raw_key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'mcp_servers', arguments: { action: 'create', data: { name: 'relay', url: upstream.url } } },
    });
    expect(created.status).toBe(200);
    expect(await created.text()).not.toContain('"isError":true');
  });
  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(
      replicas.map(async (r) => {
        if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM');
        await r.exited;
      }),
    );
    await upstream?.stop();
  });

  /** What either SDK client does in its session: three rounds of tools/list, a built-in call and an upstream call. */
  async function listAndCallThrice(client: SessionClient, tag: string): Promise<void> {
    for (let i = 0; i < 3; i++) {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['projects', 'relay__echo']));
      const created = (await client.callTool({ name: 'projects', arguments: { action: 'create', data: { name: `${tag}-${i}` } } })) as {
        isError?: boolean;
      };
      expect(created.isError).toBeFalsy();
      const echoed = (await client.callTool({ name: 'relay__echo', arguments: { said: `${tag}-${i}` } })) as { content?: unknown };
      expect(JSON.stringify(echoed.content)).toContain(`${tag}-${i}`);
    }
  }

  it('serves the SDK v1 client: initialize, tools/list, a built-in and an upstream tool, spread over the three replicas', async () => {
    const key = await createKey('sdk v1', ['projects:read', 'projects:write', 'mcp_servers:read', 'mcp_servers:write']);
    const before = await mcpPostsPerReplica();
    const transport = new StreamableHTTPClientTransport(new URL(`${nginx!.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key.raw_key}` } },
    });
    const client = new Client({ name: 'lb-v1', version: '1.0.0' });
    await client.connect(transport);
    expect(transport.sessionId).toBeDefined();
    await listAndCallThrice(client, 'v1');
    await transport.terminateSession();
    await client.close();
    const served = difference(await mcpPostsPerReplica(), before);
    // 1 initialize + 1 initialized + 9 requests: every replica served some of the session's POSTs.
    expect(served.every((n) => n > 0)).toBe(true);
    expect(served.reduce((a, b) => a + b)).toBeGreaterThanOrEqual(11);
  });

  it('serves the SDK v2 client on 2025-11-25 the same way, spread over the three replicas', async () => {
    const key = await createKey('sdk v2', ['projects:read', 'projects:write', 'mcp_servers:read', 'mcp_servers:write']);
    const before = await mcpPostsPerReplica();
    const client = new ClientV2({ name: 'lb-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    const transport = new TransportV2(new URL(`${nginx!.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key.raw_key}` } },
    });
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe('legacy');
    expect(transport.sessionId).toBeDefined();
    await listAndCallThrice(client, 'v2');
    await client.close();
    const served = difference(await mcpPostsPerReplica(), before);
    expect(served.every((n) => n > 0)).toBe(true);
  });

  it("delivers tools/list_changed on the SDK client's standalone stream when the key is edited through another replica", async () => {
    const key = await createKey('listening', ['projects:read']);
    const transport = new StreamableHTTPClientTransport(new URL(`${nginx!.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key.raw_key}` } },
    });
    const client = new Client({ name: 'lb-listen', version: '1.0.0' });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void (changed += 1));
    const getsBefore = await requestsPerReplica('GET', '/mcp');
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['projects']);
    // Each edit changes the tools the key sees; round robin sends them to one replica after another.
    const patchedOn: number[] = [];
    const edits = [['projects:read', 'chat:read'], ['projects:read', 'chat:read', 'mcp_servers:read'], ['projects:read']];
    for (const [i, scopes] of edits.entries()) {
      const before = await requestsPerReplica('PATCH', '/api/v1/api-keys/:id');
      const patched = await fetch(`${nginx!.url}/api/v1/api-keys/${key.id}`, {
        method: 'PATCH',
        headers: admin,
        body: JSON.stringify({ scopes }),
      });
      expect(patched.status).toBe(200);
      patchedOn.push(difference(await requestsPerReplica('PATCH', '/api/v1/api-keys/:id'), before).findIndex((n) => n > 0));
      await eventually(() => changed >= i + 1, 5000, 20);
    }
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['projects']);
    // Ending the session ends its standalone stream, whose GET is then counted by the replica that held it.
    await transport.terminateSession();
    await client.close();
    await eventually(async () => difference(await requestsPerReplica('GET', '/mcp'), getsBefore).some((n) => n > 0), 5000, 50);
    const streamOn = difference(await requestsPerReplica('GET', '/mcp'), getsBefore).findIndex((n) => n > 0);
    expect(patchedOn.filter((replica) => replica !== streamOn).length).toBeGreaterThan(0);
    expect(changed).toBeGreaterThanOrEqual(edits.length);
  });

  it('resumes, on another replica, a POST stream dropped mid-call: the events not yet seen and the result', async () => {
    const key = await createKey('resume', ['mcp_servers:read', 'mcp_servers:write']);
    const session = await initialize(nginx!.url, key.raw_key);
    const post = await SseStream.open(
      nginx!.url,
      key.raw_key,
      'POST',
      { 'Mcp-Session-Id': session, 'X-Request-Id': 'lb-resume-post' },
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'relay__steps', arguments: {}, _meta: { progressToken: 'p7' } },
      },
    );
    await eventually(() => post.messages().some((m) => m.method === 'notifications/progress'), 5000, 10);
    const seen = post.events.at(-1)!.id!;
    post.drop();

    const resumed = await SseStream.open(nginx!.url, key.raw_key, 'GET', {
      'Mcp-Session-Id': session,
      'Last-Event-ID': seen,
      'X-Request-Id': 'lb-resume-get',
    });
    expect(resumed.response.status).toBe(200);
    await eventually(() => resumed.ended, 10_000, 20);
    const messages = resumed.messages();
    expect(messages.map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'notifications/message', 'result']);
    expect(messages[0].params).toEqual({ progressToken: 'p7', progress: 2, total: 2 });
    expect(messages[2]).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: '"steps done"' }] } });
    const [postOn, getOn] = await Promise.all([servedBy('lb-resume-post'), servedBy('lb-resume-get')]);
    expect(getOn).not.toBe(postOn);
  });

  it("answers a session's concurrent upstream calls, spread over the replicas, each with its own events and result", async () => {
    const key = await createKey('concurrent', ['mcp_servers:read', 'mcp_servers:write']);
    const session = await initialize(nginx!.url, key.raw_key);
    const calls = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) =>
        SseStream.open(
          nginx!.url,
          key.raw_key,
          'POST',
          { 'Mcp-Session-Id': session },
          {
            jsonrpc: '2.0',
            id: 200 + i,
            method: 'tools/call',
            params: { name: 'relay__steps', arguments: {}, _meta: { progressToken: `c${i}` } },
          },
        ),
      ),
    );
    await eventually(() => calls.every((c) => c.ended), 10_000, 20);
    for (const [i, call] of calls.entries()) {
      expect(call.messages().map((m) => m.method ?? `result ${m.id}`)).toEqual([
        'notifications/progress',
        'notifications/progress',
        'notifications/message',
        `result ${200 + i}`,
      ]);
      expect(call.messages()[0].params.progressToken).toBe(`c${i}`);
      expect(call.messages()[3].result).toEqual({ content: [{ type: 'text', text: '"steps done"' }] });
    }
  });

  it('drains a replica on SIGTERM: every request in flight answered in full, new ones served by the others, no 502 but the documented race', async () => {
    const key = await createKey('drain', ['projects:read', 'projects:write', 'mcp_servers:read', 'mcp_servers:write']);
    const session = await initialize(nginx!.url, key.raw_key);
    const victim = replicas.length - 1;
    const sent: Sent[] = [];
    let n = 0;
    const send = async (what: string, init: RequestInit & { headers: Record<string, string> }, path: string) => {
      const id = `drain-${what}-${n++}`;
      const entry: Sent = { id, what, at: Date.now(), status: 0 };
      sent.push(entry);
      const res = await fetch(`${nginx!.url}${path}`, { ...init, headers: { ...init.headers, 'X-Request-Id': id } });
      entry.body = await res.text();
      entry.status = res.status;
    };
    const newUser = () => ({
      Authorization: `Bearer ${fixture.idp.token({ sub: crypto.randomUUID() })}`,
      'Content-Type': 'application/json',
    });
    // Traffic that keeps coming: key listings, key creations, stateless tools/list.
    let traffic = true;
    const mcpHeaders = {
      Authorization: `Bearer ${key.raw_key}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    const loop = async (i: number) => {
      while (traffic) {
        if (i === 0) await send('list', { headers: admin }, '/api/v1/api-keys');
        if (i === 1)
          // Each by a user of its own: a user may hold 100 keys.
          await send('create', { method: 'POST', headers: newUser(), body: JSON.stringify({ name: `drain ${n}` }) }, '/api/v1/api-keys');
        if (i === 2)
          await send(
            'tools',
            { method: 'POST', headers: mcpHeaders, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) },
            '/mcp',
          );
      }
    };
    const loops = [0, 1, 2, 0, 1, 2, 0, 1, 2].map(loop);
    // Slow tool calls answered over SSE in the session, spread over the replicas by round robin.
    const calls = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) =>
        SseStream.open(
          nginx!.url,
          key.raw_key,
          'POST',
          { 'Mcp-Session-Id': session, 'X-Request-Id': `drain-call-${i}` },
          {
            jsonrpc: '2.0',
            id: 100 + i,
            method: 'tools/call',
            params: { name: 'relay__steps', arguments: {}, _meta: { progressToken: `d${i}` } },
          },
        ),
      ),
    );
    await eventually(() => calls.every((c) => c.messages().some((m) => m.method === 'notifications/progress')), 5000, 10);
    const signalledAt = Date.now();
    replicas[victim].child.kill('SIGTERM');
    const exitCode = await replicas[victim].exited;
    const exitedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 500));
    traffic = false;
    await Promise.all(loops);
    await eventually(() => calls.every((c) => c.ended), 10_000, 20);

    expect(exitCode).toBe(0);
    // The calls in flight, some of them on the replica that left, all ended with their result.
    const onVictim = (id: string) => replicas[victim].output().includes(`"id":"${id}"`);
    expect(calls.filter((_, i) => onVictim(`drain-call-${i}`)).length).toBeGreaterThan(0);
    for (const [i, call] of calls.entries()) {
      expect(call.response.status).toBe(200);
      expect(call.messages().find((m) => m.id === 100 + i)).toMatchObject({
        result: { content: [{ type: 'text', text: '"steps done"' }] },
      });
    }
    // Every request a replica saw got a whole 2xx answer: nothing cut, no 504. The one 502 allowed is the race
    // docs/operations.md names, which no server closes: a connection NGINX opened to the leaving replica in the instant
    // its listener closed is reset in the listener's queue, before keygate read a byte of it, and NGINX may not resend
    // the POST it had sent on it. So only a POST no replica ever saw, sent just after the signal, with NGINX's reset
    // from the leaving replica in its log. (An idle keep-alive connection closed under NGINX would show later.)
    const seen = (id: string) => replicas.some((r) => r.output().includes(`"id":"${id}"`));
    const failed = sent.filter((r) => r.status < 200 || r.status > 299);
    const raced = failed.filter((r) => r.status === 502 && r.what !== 'list' && !seen(r.id) && r.at - signalledAt < 1000);
    expect(failed.filter((r) => !raced.includes(r)).map((r) => `${r.id} ${r.status} ${r.body?.slice(0, 200)}`)).toEqual([]);
    const victimPort = portOf(replicas[victim]);
    const resets = nginx!
      .errorLog()
      .split('\n')
      .filter((line) => /\(104: Connection reset by peer\) while reading response header/.test(line));
    expect(resets.filter((line) => line.includes(`upstream: "http://127.0.0.1:${victimPort}/`)).length).toBeGreaterThanOrEqual(
      raced.length,
    );
    // New requests kept coming throughout; the others served them (the leaving one only those on connections NGINX had
    // open to it, each answered in full with Connection: close), and after it left, the others alone.
    expect(sent.filter((r) => r.at > signalledAt && !onVictim(r.id)).length).toBeGreaterThan(0);
    expect(sent.filter((r) => r.at > exitedAt).length).toBeGreaterThan(0);
    expect(nginx!.errorLog()).not.toMatch(/upstream prematurely closed|no live upstreams/);
  });
});

it("is the NGINX configuration docs/operations.md shows under 'Behind a load balancer'", () => {
  const page = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  const section = page.slice(page.indexOf('## Behind a load balancer'));
  const shown = /```nginx\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const lines = (text: string) =>
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
  expect(lines(shown)).toEqual(lines(loadBalancerServer([8081, 8082, 8083])(8080)));
});

/** The two calls listAndCallThrice makes, as the SDK v1 and v2 clients both offer them. */
interface SessionClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

interface Sent {
  id: string;
  what: string;
  /** When it was sent. */
  at: number;
  status: number;
  body?: string;
}

interface CreatedKey {
  id: string;
  raw_key: string;
}

async function createKey(name: string, scopes: string[] | null): Promise<CreatedKey> {
  const res = await fetch(`${nginx!.url}/api/v1/api-keys`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify(scopes === null ? { name } : { name, scopes }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as CreatedKey;
}

/** What each replica's /metrics says it served: POSTs to /mcp, any status. */
function mcpPostsPerReplica(): Promise<number[]> {
  return requestsPerReplica('POST', '/mcp');
}

/** Requests each replica's /metrics counted for one method and route pattern, any status. */
async function requestsPerReplica(method: string, route: string): Promise<number[]> {
  const labels = (l: string) => l.includes(`method="${method}"`) && l.includes(`route="${route}"`);
  return Promise.all(
    replicas.map(async (r) =>
      (await metricsOf(r))
        .split('\n')
        .filter((l) => l.startsWith('keygate_http_requests_total{') && labels(l))
        .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0),
    ),
  );
}

async function metricsOf(replica: ServiceProcess): Promise<string> {
  return (await fetch(`${replica.baseUrl}/metrics`)).text();
}

/** The replica whose log has the request line of `requestId` (written when the request ended). */
async function servedBy(requestId: string): Promise<number> {
  let found = -1;
  await eventually(() => (found = replicas.findIndex((r) => r.output().includes(`"id":"${requestId}"`))) >= 0, 5000, 20);
  return found;
}

/** An SSE answer through NGINX, read as it arrives; `drop()` cuts the connection. */
class SseStream {
  readonly events: SseEvent[] = [];
  ended = false;
  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {}

  static async open(
    base: string,
    raw: string,
    method: 'GET' | 'POST',
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<SseStream> {
    const controller = new AbortController();
    const response = await fetch(`${base}/mcp`, {
      method,
      signal: controller.signal,
      headers: {
        Authorization: `Bearer ${raw}`,
        Accept: method === 'GET' ? 'text/event-stream' : 'application/json, text/event-stream',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const stream = new SseStream(response, controller);
    if (response.status === 200) void readSse(response, { event: (e) => stream.events.push(e) }).then(() => (stream.ended = true));
    return stream;
  }

  drop(): void {
    this.controller.abort();
  }

  /** The JSON-RPC messages, priming events left out. */
  messages(): Record<string, any>[] {
    return this.events.filter((e) => e.data.trim() !== '').map((e) => JSON.parse(e.data));
  }
}

function difference(after: number[], before: number[]): number[] {
  return after.map((n, i) => n - before[i]);
}
