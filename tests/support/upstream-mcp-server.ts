import http from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { listenLoopback } from './listen-loopback';

export interface UpstreamMcpServer {
  url: string;
  /** Headers of every request it received, lower-cased names. */
  seenHeaders: Record<string, string | string[] | undefined>[];
  /** Delay before each answer, to play a slow upstream. */
  delayMs: number;
  /** What tools/list serves; replace an entry to change a tool's definition at run time. */
  tools: Tool[];
  /** JSON-RPC methods of resources, prompts and completion it received, in order. */
  seenMethods: string[];
  /** The `_meta` of every tools/call, in order. */
  seenMeta: unknown[];
  stop(): Promise<void>;
}

const TOOLS: Tool[] = [
  { name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  { name: 'secret', description: 'Guarded by tool_scopes', inputSchema: { type: 'object' } },
];

/** Readable resources: a note and a secret, each also behind a URI template that reads any name under it. */
const RESOURCES = [
  { uri: 'file:///notes/a.txt', name: 'a', mimeType: 'text/plain' },
  { uri: 'file:///secret/s.txt', name: 's', mimeType: 'text/plain' },
];
const TEMPLATES = [
  { uriTemplate: 'file:///notes/{name}', name: 'note', mimeType: 'text/plain' },
  { uriTemplate: 'file:///secret/{name}', name: 'secret', mimeType: 'text/plain' },
];
const PROMPTS = [
  { name: 'greet', description: 'Greets someone', arguments: [{ name: 'who', required: true }] },
  { name: 'vault', description: 'Guarded by prompt_scopes' },
];
const COMPLETIONS: Record<string, string[]> = { who: ['world', 'wendy', 'bob'], name: ['a.txt', 'b.txt'] };

/**
 * A real MCP server built with the SDK, stateless, on a loopback port: tools,
 * and resources, templates, prompts and completions whose texts name `label`,
 * so tests tell two of them apart.
 */
export async function startUpstream(label = 'upstream'): Promise<UpstreamMcpServer> {
  const state: UpstreamMcpServer = {
    url: '',
    seenHeaders: [],
    delayMs: 0,
    tools: structuredClone(TOOLS),
    seenMethods: [],
    seenMeta: [],
    stop: async () => undefined,
  };
  const httpServer = http.createServer(
    (req, res) =>
      void (async () => {
        state.seenHeaders.push({ ...req.headers });
        await new Promise((r) => setTimeout(r, state.delayMs));
        const server = new Server(
          { name: 'upstream', version: '1.0.0' },
          { capabilities: { tools: {}, resources: {}, prompts: {}, completions: {} } },
        );
        const seen = <T>(method: string, answer: T): T => (state.seenMethods.push(method), answer);
        server.setRequestHandler(ListResourcesRequestSchema, async () => seen('resources/list', { resources: RESOURCES }));
        server.setRequestHandler(ListResourceTemplatesRequestSchema, async () =>
          seen('resources/templates/list', { resourceTemplates: TEMPLATES }),
        );
        server.setRequestHandler(ReadResourceRequestSchema, async ({ params: { uri } }) => {
          seen('resources/read', null);
          if (!/^file:\/\/\/(notes|secret)\/[^/]+$/.test(uri)) throw new McpError(-32002, `Resource ${uri} not found`);
          return { contents: [{ uri, mimeType: 'text/plain', text: `${label}: ${uri}` }] };
        });
        server.setRequestHandler(ListPromptsRequestSchema, async () => seen('prompts/list', { prompts: PROMPTS }));
        server.setRequestHandler(GetPromptRequestSchema, async ({ params: { name, arguments: args } }) => {
          seen('prompts/get', null);
          if (!PROMPTS.some((prompt) => prompt.name === name)) throw new McpError(-32602, `Prompt ${name} not found`);
          return { messages: [{ role: 'user', content: { type: 'text', text: `${label} ${name}s ${args?.who ?? 'nobody'}` } }] };
        });
        server.setRequestHandler(CompleteRequestSchema, async ({ params: { argument } }) =>
          seen('completion/complete', {
            completion: {
              values: (COMPLETIONS[argument.name] ?? [])
                .filter((value) => value.startsWith(argument.value))
                .map((value) => `${label}:${value}`),
            },
          }),
        );
        server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: state.tools }));
        server.setRequestHandler(CallToolRequestSchema, async (request) => {
          state.seenMeta.push(request.params._meta);
          const text = request.params.name === 'echo' ? String(request.params.arguments?.text ?? '') : 'the secret';
          return { content: [{ type: 'text', text }], structuredContent: { text } };
        });
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        res.on('close', () => void server.close());
        await server.connect(transport);
        await transport.handleRequest(req, res);
      })(),
  );
  const loopback = await listenLoopback(httpServer);
  state.url = `${loopback.url}/mcp`;
  state.stop = loopback.close;
  return state;
}
