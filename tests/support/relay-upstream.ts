import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { listenLoopback } from './listen-loopback';

/** What the relay upstream saw, for tests to assert on. */
export interface RelayUpstream {
  url: string;
  initializes: number;
  /** Client capabilities each initialize declared. */
  declared: Record<string, unknown>[];
  deletes: string[];
  /** logging/setLevel levels, in order. */
  levels: string[];
  /** Tool calls the client cancelled. */
  cancelled: number;
  /** Names of the tools whose calls were aborted (cancelled by the client, or their session closed), in order. */
  aborted: string[];
  /** Session ids it knows; delete one to play an upstream that forgot a session. */
  sessions: Map<string, StreamableHTTPServerTransport>;
  /** Headers of every request it received, lower-cased names. */
  seenHeaders: Record<string, string | string[] | undefined>[];
  stop(): Promise<void>;
}

/** What the relay upstream serves besides its tools and resources. */
export interface RelayUpstreamOptions {
  /** Declares prompts: `plain`, and `ask`, whose get asks the client's name (elicitation) first. */
  prompts?: boolean;
}

const ELICIT_NAME = {
  method: 'elicitation/create' as const,
  params: {
    mode: 'form' as const,
    message: 'Your name?',
    requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] },
  },
};

const TOOLS = ['progress', 'steps', 'sample', 'elicit', 'roots', 'slow', 'echo'].map((name) => ({
  name,
  inputSchema: { type: 'object' as const },
}));

/**
 * A real MCP server with sessions, built with the SDK, whose tools send what
 * keygate relays, on the tool call's own SSE response: `progress` (two
 * progress notifications and a log message), `steps` (the same, 400 ms
 * apart, for a client to drop its stream between them), `sample`, `elicit` and `roots`
 * (a request to the client, answered with what the client said), `slow`
 * (waits to be cancelled), `echo`. Reading `ask://name` asks the client's
 * name (elicitation) and gives back what it said; any other URI reads as it is.
 */
export async function startRelayUpstream(options: RelayUpstreamOptions = {}): Promise<RelayUpstream> {
  const state: RelayUpstream = {
    url: '',
    initializes: 0,
    declared: [],
    deletes: [],
    levels: [],
    cancelled: 0,
    aborted: [],
    sessions: new Map(),
    seenHeaders: [],
    stop: async () => undefined,
  };
  const httpServer = http.createServer(
    (req, res) =>
      void (async () => {
        state.seenHeaders.push({ ...req.headers });
        const id = req.headers['mcp-session-id'];
        if (req.method === 'DELETE' && typeof id === 'string') state.deletes.push(id);
        let transport = typeof id === 'string' ? state.sessions.get(id) : undefined;
        if (id !== undefined && !transport)
          return void res
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
        if (!transport) transport = await openSession(state, options);
        await transport.handleRequest(req, res);
      })(),
  );
  const loopback = await listenLoopback(httpServer);
  state.url = `${loopback.url}/mcp`;
  state.stop = async () => {
    await Promise.all([...state.sessions.values()].map((t) => t.close()));
    await loopback.close();
  };
  return state;
}

async function openSession(state: RelayUpstream, options: RelayUpstreamOptions): Promise<StreamableHTTPServerTransport> {
  const server = new Server(
    { name: 'relay-upstream', version: '1.0.0' },
    { capabilities: { tools: {}, logging: {}, resources: {}, ...(options.prompts && { prompts: {} }) } },
  );
  server.oninitialized = () => {
    state.initializes += 1;
    state.declared.push(server.getClientCapabilities() ?? {});
  };
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    state.levels.push(request.params.level);
    return {};
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [{ uri: 'note://a', name: 'a' }] }));
  server.setRequestHandler(ReadResourceRequestSchema, async ({ params: { uri } }, extra) => {
    if (uri !== 'ask://name') return { contents: [{ uri, text: `read ${uri}` }] };
    return { contents: [{ uri, text: JSON.stringify(await extra.sendRequest(ELICIT_NAME, ElicitResultSchema)) }] };
  });
  if (options.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [{ name: 'plain' }, { name: 'ask' }] }));
    server.setRequestHandler(GetPromptRequestSchema, async ({ params: { name } }, extra) => {
      const text = name === 'ask' ? JSON.stringify(await extra.sendRequest(ELICIT_NAME, ElicitResultSchema)) : 'plain';
      return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
    });
  }
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    extra.signal.addEventListener('abort', () => void state.aborted.push(request.params.name));
    const text = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });
    switch (request.params.name) {
      case 'progress': {
        const progressToken = request.params._meta?.progressToken;
        if (progressToken !== undefined) {
          for (const progress of [1, 2])
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress, total: 2, message: `step ${progress}` },
            });
        }
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'info', logger: 'relay-upstream', data: 'working' },
        });
        return text('done');
      }
      case 'steps': {
        const progressToken = request.params._meta?.progressToken ?? 'none';
        const pause = () => new Promise((resolve) => setTimeout(resolve, 400));
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 1, total: 2 } });
        await pause();
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 2, total: 2 } });
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'info', logger: 'relay-upstream', data: 'steps' },
        });
        await pause();
        return text('steps done');
      }
      case 'sample': {
        const answer = await extra.sendRequest(
          {
            method: 'sampling/createMessage',
            params: {
              messages: [{ role: 'user', content: { type: 'text', text: 'What is 2+2?' } }],
              maxTokens: 10,
            },
          },
          CreateMessageResultSchema,
        );
        return text(answer.content);
      }
      case 'elicit': {
        return text(await extra.sendRequest(ELICIT_NAME, ElicitResultSchema));
      }
      case 'roots':
        return text(await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema));
      case 'slow':
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 10_000);
          extra.signal.addEventListener('abort', () => {
            state.cancelled += 1;
            clearTimeout(timer);
            resolve();
          });
        });
        return text('slow done');
      default:
        return text(request.params.arguments ?? {});
    }
  });
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void state.sessions.set(id, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) state.sessions.delete(transport.sessionId);
  };
  await server.connect(transport);
  return transport;
}
