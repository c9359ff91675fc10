import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { classifyInboundRequest, createMcpHandler, Server } from '@modelcontextprotocol/server';

/**
 * The upstream of (j): an MCP server built with the SDK v2 the way its own
 * dual-era examples build one, serving 2026-07-28 statelessly and 2025 in
 * sessions on one endpoint, with one tool, `echo`, that answers its text at
 * once. Both (j)'s direct client and keygate call this one process, so the
 * difference between the two is keygate's.
 */
const TOOLS = [
  { name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
] as never[];

function serverFor(): Server {
  const server = new Server({ name: 'bench-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({ tools: TOOLS }));
  server.setRequestHandler('tools/call', async (request) => ({
    content: [{ type: 'text', text: String(request.params.arguments?.text ?? '') }],
  }));
  return server;
}

const modern = toNodeHandler(createMcpHandler(() => serverFor(), { legacy: 'reject' }));
const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
const httpServer = http.createServer(
  (req, res) =>
    void (async () => {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      let body: unknown;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        return void res.writeHead(400).end();
      }
      const header = (name: string) => req.headers[name] as string | undefined;
      const route = classifyInboundRequest({
        httpMethod: req.method ?? 'GET',
        protocolVersionHeader: header('mcp-protocol-version'),
        mcpMethodHeader: header('mcp-method'),
        mcpNameHeader: header('mcp-name'),
        body,
      });
      if (route.kind !== 'legacy') return void modern(req, res, body);
      const id = header('mcp-session-id');
      let transport = id === undefined ? undefined : sessions.get(id);
      if (transport === undefined) {
        if (route.reason !== 'initialize') {
          return void res
            .writeHead(404, { 'Content-Type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
        }
        const opened = new NodeStreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (sid) => void sessions.set(sid, opened),
        });
        opened.onclose = () => void (opened.sessionId && sessions.delete(opened.sessionId));
        await serverFor().connect(opened);
        transport = opened;
      }
      await transport.handleRequest(req, res, body);
    })(),
);
httpServer.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://localhost:${(httpServer.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => {
  httpServer.closeAllConnections();
  httpServer.close(() => process.exit(0));
});
