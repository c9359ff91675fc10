import http from 'node:http';
import { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpHttpHandler, McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { call, makeKey, rpc, TestKey } from '../support/mcp-keys';
import { NGINX_CANDIDATES, RunningNginx, startNginx } from '../support/nginx';
import { startTestApp, TestApp } from '../support/test-app';
import { describeWithProgram, installedAt } from '../support/system-program';

jest.setTimeout(60_000);

const V = '2026-07-28';

/**
 * docs/forward-auth.md's NGINX configuration for an MCP server keygate does not proxy:
 * every request to /mcp is checked by /authz from its headers alone (the body
 * stays with NGINX), naming the key owner's server record `files`.
 */
const nginxServer = (keygatePort: number, mcpPort: number) => (port: number) => `
  upstream keygate { server 127.0.0.1:${keygatePort}; keepalive 8; }
  upstream files_mcp { server 127.0.0.1:${mcpPort}; }
  server {
    listen 127.0.0.1:${port};

    location = /mcp {
      auth_request /_keygate_authz;
      auth_request_set $keygate_user_id $upstream_http_x_keygate_user_id;
      proxy_set_header X-Keygate-User-Id $keygate_user_id;
      proxy_set_header Authorization "";
      proxy_set_header X-API-Key "";
      proxy_http_version 1.1;
      proxy_buffering off;
      proxy_pass http://files_mcp;
    }

    location = /_keygate_authz {
      internal;
      proxy_pass http://keygate/authz;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Keygate-Mcp-Server files;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
`;

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The body bytes that arrived. */
  body: string;
}

let t: TestApp;
let keygate: http.Server;
let mcp: http.Server;
let handler: McpHttpHandler;
let nginx: RunningNginx | undefined;
let owner: TestKey;
let reader: TestKey;
/** What reached keygate's /authz, and what reached the MCP server. */
const atKeygate: Seen[] = [];
const atServer: Seen[] = [];

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

beforeAll(async () => {
  t = await startTestApp({
    TRUST_PROXY: 'loopback',
    MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8',
    SECRETS_KEY: randomBytes(32).toString('base64'),
  });
  // keygate as deployed, with a tap that notes each /authz request as it came: headers, and any body bytes on the wire.
  keygate = http.createServer((req, res) => {
    if (req.url?.startsWith('/authz')) {
      const seen: Seen = { url: req.url, headers: { ...req.headers }, body: '' };
      atKeygate.push(seen);
      req.on('data', (chunk: Buffer) => void (seen.body += chunk.toString('utf8')));
    }
    t.app(req, res);
  });
  // A 2026-07-28 MCP server of the SDK v2, 2025 clients refused; keygate never contacts it.
  handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'files', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.registerTool('echo', { description: 'Echoes' }, async () => ({ content: [{ type: 'text', text: 'echoed' }] }));
      server.registerTool('secret', { description: 'Guarded by tool_scopes' }, async () => ({
        content: [{ type: 'text', text: 'the secret' }],
      }));
      return server;
    },
    { legacy: 'reject' },
  );
  const serve = toNodeHandler(handler);
  mcp = http.createServer(
    (req, res) =>
      void (async () => {
        const body = await readBody(req);
        atServer.push({ url: req.url ?? '', headers: { ...req.headers }, body });
        await serve(req, res, body === '' ? undefined : JSON.parse(body));
      })(),
  );
  const [keygatePort, mcpPort] = await Promise.all([listen(keygate), listen(mcp)]);
  owner = await makeKey(t);
  reader = await makeKey(t, ['chat:read'], owner.user);
  // The record names the server and its tools' scopes; its URL is never used here.
  await rpc(
    t,
    owner,
    call(1, 'mcp_servers', {
      action: 'create',
      data: { name: 'files', url: `http://127.0.0.1:${mcpPort}/mcp`, tool_scopes: { echo: ['chat:read'], secret: ['chat:write'] } },
    }),
  ).expect(200);
  nginx = await startNginx(nginxServer(keygatePort, mcpPort));
});

afterAll(async () => {
  await nginx?.stop();
  await handler?.close();
  await new Promise((resolve) => mcp?.close(resolve));
  await new Promise((resolve) => keygate?.close(resolve));
  await t?.close();
});

const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };

/** A 2026-07-28 tools/call as a client sends it: headers mirroring the body. */
function callTool(key: TestKey, name: string, id: number): Promise<Response> {
  return fetch(`${nginx!.url}/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${key.raw}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': V,
      'Mcp-Method': 'tools/call',
      'Mcp-Name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, _meta: meta } }),
  });
}

async function resultOf(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('text/event-stream') ? /^data: (.*)$/m.exec(text)![1] : text;
  return JSON.parse(json) as Record<string, unknown>;
}

describeWithProgram(
  'nginx',
  installedAt(NGINX_CANDIDATES),
  'apt-get install nginx',
)('keygate in front of a 2026-07-28 MCP server it does not proxy (NGINX auth_request)', () => {
  it('lets a permitted tools/call through to the server, which alone reads the body; keygate gets no body', async () => {
    const [authzBefore, serverBefore] = [atKeygate.length, atServer.length];
    const res = await callTool(reader, 'echo', 7);
    expect(res.status).toBe(200);
    expect(await resultOf(res)).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'echoed' }] } });

    const authz = atKeygate.slice(authzBefore);
    expect(authz).toHaveLength(1);
    expect(authz[0]).toMatchObject({
      url: '/authz',
      body: '',
      headers: { 'mcp-method': 'tools/call', 'mcp-name': 'echo', 'x-keygate-mcp-server': 'files' },
    });
    expect(authz[0].headers['content-length']).toBeUndefined();
    expect(authz[0].headers['transfer-encoding']).toBeUndefined();
    const reached = atServer.slice(serverBefore);
    expect(reached).toHaveLength(1);
    expect(JSON.parse(reached[0].body)).toMatchObject({ method: 'tools/call', params: { name: 'echo' } });
    expect(reached[0].headers['x-keygate-user-id']).toBe(owner.user);
    expect(reached[0].headers.authorization).toBeUndefined();
  });

  it('refuses a forbidden tools/call with 403 at NGINX: the server never sees it, and keygate decided from the headers alone', async () => {
    const [authzBefore, serverBefore] = [atKeygate.length, atServer.length];
    const res = await callTool(reader, 'secret', 8);
    expect(res.status).toBe(403);
    expect(atServer).toHaveLength(serverBefore);
    const authz = atKeygate.slice(authzBefore);
    expect(authz).toHaveLength(1);
    expect(authz[0]).toMatchObject({ body: '', headers: { 'mcp-name': 'secret' } });
    expect(authz[0].headers['content-length']).toBeUndefined();
    // The key that may call it passes the same request.
    expect((await callTool(owner, 'secret', 9)).status).toBe(200);
  });

  it('serves the SDK v2 client pinned to 2026-07-28 through NGINX: discovery and a permitted call pass, a forbidden call fails', async () => {
    const client = new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode: { pin: V } } });
    const transport = new StreamableHTTPClientTransport(new URL(`${nginx!.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${reader.raw}` } },
    });
    await client.connect(transport);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(V);
      const serverBefore = atServer.length;
      expect(await client.callTool({ name: 'echo', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'echoed' }] });
      expect(atServer.length).toBe(serverBefore + 1);
      await expect(client.callTool({ name: 'secret', arguments: {} })).rejects.toThrow(/403/);
      expect(atServer.length).toBe(serverBefore + 1);
    } finally {
      await client.close();
    }
  });

  it('refuses, at NGINX, a request whose headers keygate may not trust (2025 version): auth_request turns the 400 into a 500', async () => {
    const serverBefore = atServer.length;
    const res = await fetch(`${nginx!.url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${reader.raw}`,
        'Content-Type': 'application/json',
        'MCP-Protocol-Version': '2025-11-25',
        'Mcp-Method': 'tools/call',
        'Mcp-Name': 'echo',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'secret', arguments: {} } }),
    });
    expect(res.status).toBe(500);
    expect(atServer).toHaveLength(serverBefore);
  });
});
