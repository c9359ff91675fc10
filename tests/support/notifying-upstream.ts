import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  Tool,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { listenLoopback } from './listen-loopback';

/** What the notifying upstream saw, and how a test makes it speak outside a call. */
export interface NotifyingUpstream {
  url: string;
  /** resources/subscribe and resources/unsubscribe it received, as `+uri` / `-uri`. */
  follows: string[];
  /** GET (standalone stream) requests it received. */
  streamsOpened: number;
  /** DELETE (session end) requests it received. */
  sessionsEnded: number;
  tools: Tool[];
  /** Sends notifications/resources/updated for `uri` on every session's GET stream (subscribed or not: keygate must filter). */
  updated(uri: string): Promise<void>;
  /** Adds a tool and sends notifications/tools/list_changed on every session's GET stream. */
  addTool(name: string): Promise<void>;
  /** Forgets every session, as a restarted server does: their GET streams end, and any request naming one gets 404. */
  forgetSessions(): Promise<void>;
  stop(): Promise<void>;
}

const RESOURCES = ['note://a', 'note://b', 'secret://s'].map((uri) => ({ uri, name: uri }));

export interface NotifyingOptions {
  /** Sends notifications/resources/updated for a URI on the session's GET stream right after answering its resources/subscribe. */
  updateOnSubscribe?: boolean;
}

/**
 * A real MCP server with sessions (SDK), declaring resources.subscribe and
 * listChanged, that speaks on its GET stream when told (or, with
 * updateOnSubscribe, as soon as a URI is subscribed, as a server whose
 * resource changes often may). Without a GET stream open it sends nothing:
 * what it says then is lost, as with the SDK's server.
 */
export async function startNotifyingUpstream(options: NotifyingOptions = {}): Promise<NotifyingUpstream> {
  const servers = new Map<string, Server>();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const state: NotifyingUpstream = {
    url: '',
    follows: [],
    streamsOpened: 0,
    sessionsEnded: 0,
    tools: [{ name: 'echo', inputSchema: { type: 'object' } }],
    updated: async (uri) =>
      void (await Promise.all([...servers.values()].map((s) => s.sendResourceUpdated({ uri }).catch(() => undefined)))),
    addTool: async (name) => {
      state.tools.push({ name, inputSchema: { type: 'object' } });
      await Promise.all([...servers.values()].map((s) => s.sendToolListChanged().catch(() => undefined)));
    },
    forgetSessions: async () => {
      const forgotten = [...transports.values()];
      transports.clear();
      servers.clear();
      await Promise.all(forgotten.map((t) => t.close().catch(() => undefined)));
    },
    stop: async () => undefined,
  };
  const open = async (): Promise<StreamableHTTPServerTransport> => {
    const server = new Server(
      { name: 'notifying', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: state.tools }));
    server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
    server.setRequestHandler(ReadResourceRequestSchema, async ({ params: { uri } }) => ({ contents: [{ uri, text: `read ${uri}` }] }));
    server.setRequestHandler(SubscribeRequestSchema, async ({ params: { uri } }) => {
      state.follows.push(`+${uri}`);
      // After the answer is on its way: the handler's result is sent in the microtasks that follow.
      if (options.updateOnSubscribe) setImmediate(() => void server.sendResourceUpdated({ uri }).catch(() => undefined));
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async ({ params: { uri } }) => (state.follows.push(`-${uri}`), {}));
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
        servers.set(id, server);
      },
    });
    await server.connect(transport);
    return transport;
  };
  const httpServer = http.createServer(
    (req, res) =>
      void (async () => {
        const id = req.headers['mcp-session-id'];
        if (req.method === 'GET') state.streamsOpened += 1;
        if (req.method === 'DELETE') state.sessionsEnded += 1;
        let transport = typeof id === 'string' ? transports.get(id) : undefined;
        if (id !== undefined && !transport) return void res.writeHead(404).end();
        transport ??= await open();
        await transport.handleRequest(req, res);
      })(),
  );
  const loopback = await listenLoopback(httpServer);
  state.url = `${loopback.url}/mcp`;
  state.stop = async () => {
    await Promise.all([...transports.values()].map((t) => t.close()));
    await loopback.close();
  };
  return state;
}
