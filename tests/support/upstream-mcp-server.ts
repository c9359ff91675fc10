import http from 'node:http';
import { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, Tool } from '@modelcontextprotocol/sdk/types.js';

export interface UpstreamMcpServer {
  url: string;
  /** Headers of every request it received, lower-cased names. */
  seenHeaders: Record<string, string | string[] | undefined>[];
  /** Delay before each answer, to play a slow upstream. */
  delayMs: number;
  /** What tools/list serves; replace an entry to change a tool's definition at run time. */
  tools: Tool[];
  stop(): Promise<void>;
}

const TOOLS: Tool[] = [
  { name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  { name: 'secret', description: 'Guarded by tool_scopes', inputSchema: { type: 'object' } },
];

/** A real MCP server built with the SDK, stateless, on a loopback port. */
export async function startUpstream(): Promise<UpstreamMcpServer> {
  const state: UpstreamMcpServer = { url: '', seenHeaders: [], delayMs: 0, tools: structuredClone(TOOLS), stop: async () => undefined };
  const httpServer = http.createServer(async (req, res) => {
    state.seenHeaders.push({ ...req.headers });
    await new Promise((r) => setTimeout(r, state.delayMs));
    const server = new Server({ name: 'upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: state.tools }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const text = request.params.name === 'echo' ? String(request.params.arguments?.text ?? '') : 'the secret';
      return { content: [{ type: 'text', text }], structuredContent: { text } };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
  state.stop = () => new Promise<void>((resolve) => {
    httpServer.closeAllConnections();
    httpServer.close(() => resolve());
  });
  return state;
}
