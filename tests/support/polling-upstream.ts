import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { EventStore, StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, JSONRPCMessage, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { listenLoopback } from './listen-loopback';

export const RECONNECTION_TEXT = 'Reconnection test completed successfully.';

/** What the polling upstream saw. */
export interface PollingUpstream {
  url: string;
  /** GETs it received with Last-Event-ID (resumptions of a POST's answer). */
  resumptions: number;
  stop(): Promise<void>;
}

/**
 * Events by id, `<stream>::<time>_<uuid>` as the conformance suite's
 * reference server writes them, replayed after an id of the same stream.
 */
function eventStore(): EventStore {
  const events = new Map<string, { stream: string; message: JSONRPCMessage }>();
  return {
    async storeEvent(stream, message) {
      const id = `${stream}::${Date.now()}_${randomUUID()}`;
      events.set(id, { stream, message });
      return id;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const stream = lastEventId.split('::')[0];
      const after = [...events].filter(([id, event]) => event.stream === stream && id > lastEventId).sort(([a], [b]) => a.localeCompare(b));
      for (const [id, { message }] of after) if (Object.keys(message).length > 0) await send(id, message);
      return stream;
    },
  };
}

/**
 * An upstream like the conformance suite's reference server
 * (examples/servers/typescript, scenario server-sse-polling, SEP-1699) for
 * its one tool `test_reconnection`: sessions, an event store, a priming
 * event with `retry: <retryMs>` on every SSE answer; the tool closes its
 * answer's stream at once and finishes 100 ms later, so its result reaches
 * only a client that resumes with GET and Last-Event-ID. Its GET without a
 * session id is 400, as the reference server's is.
 */
export async function startPollingUpstream(retryMs = 5000): Promise<PollingUpstream> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const open = async (): Promise<StreamableHTTPServerTransport> => {
    const server = new Server({ name: 'polling', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'test_reconnection', description: 'Closes its stream mid-call (SEP-1699)', inputSchema: { type: 'object' } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
      extra.closeSSEStream?.();
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { content: [{ type: 'text', text: RECONNECTION_TEXT }] };
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: eventStore(),
      retryInterval: retryMs,
      onsessioninitialized: (id) => void transports.set(id, transport),
    });
    await server.connect(transport);
    return transport;
  };
  const state: PollingUpstream = { url: '', resumptions: 0, stop: async () => undefined };
  const httpServer = http.createServer(
    (req, res) =>
      void (async () => {
        const id = req.headers['mcp-session-id'];
        const known = typeof id === 'string' ? transports.get(id) : undefined;
        if (req.method === 'GET') {
          if (known === undefined) return void res.writeHead(400).end('Invalid or missing session ID');
          if (req.headers['last-event-id'] !== undefined) state.resumptions += 1;
        }
        if (id !== undefined && known === undefined) return void res.writeHead(404).end();
        await (known ?? (await open())).handleRequest(req, res);
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
