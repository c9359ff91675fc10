import http from 'node:http';
import { listenLoopback } from './listen-loopback';

/**
 * How a raw upstream answers. `plain` is a well-behaved MCP server with two
 * tools; the others misbehave in one way each.
 */
export type RawUpstreamMode =
  | 'plain'
  | 'huge-list-json' // tools/list: one 150 MB JSON page
  | 'huge-list-sse' // tools/list: one 150 MB SSE event
  | 'huge-initialize' // initialize: 150 MB
  | 'huge-call' // tools/call: 150 MB; tools/list is plain
  | 'endless-pages' // tools/list: a nextCursor on every page
  | 'many-tools' // tools/list: 600 tools over six pages
  | 'huge-read' // resources/read: 150 MB; resources/list is one resource
  | 'endless-resources'; // resources/list: a nextCursor on every page

export interface RawUpstream {
  url: string;
  /** Requests received, by JSON-RPC method (`GET` for GET requests). */
  requests: Record<string, number>;
  /** Bytes of the 150 MB replies written before the client went away. */
  hugeBytesSent: number;
  stop(): Promise<void>;
}

const HUGE = 150 * 1024 * 1024;
const tool = (name: string) => ({ name, description: `${name} tool`, inputSchema: { type: 'object' } });

/** An MCP server written by hand on a loopback port, to play upstreams the SDK would not let us write. */
export async function startRawUpstream(mode: RawUpstreamMode): Promise<RawUpstream> {
  const state: RawUpstream = { url: '', requests: {}, hugeBytesSent: 0, stop: async () => undefined };
  const server = http.createServer(
    (req, res) =>
      void (async () => {
        if (req.method !== 'POST') {
          state.requests.GET = (state.requests.GET ?? 0) + 1;
          return void res.writeHead(405).end();
        }
        let body = '';
        for await (const chunk of req) body += chunk;
        const message = JSON.parse(body) as {
          id?: number;
          method: string;
          params?: { cursor?: string; protocolVersion?: string; name?: string };
        };
        state.requests[message.method] = (state.requests[message.method] ?? 0) + 1;
        if (message.id === undefined) return void res.writeHead(202).end();
        const reply = (result: unknown) =>
          res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
        const huge = (sse: boolean) => streamHuge(res, message.id!, sse, (n) => (state.hugeBytesSent += n));
        switch (message.method) {
          case 'initialize':
            if (mode === 'huge-initialize') return huge(false);
            return reply({
              protocolVersion: message.params?.protocolVersion,
              capabilities: { tools: {}, ...((mode === 'huge-read' || mode === 'endless-resources') && { resources: {} }) },
              serverInfo: { name: `raw-${mode}`, version: '1.0.0' },
            });
          case 'tools/list': {
            if (mode === 'huge-list-json' || mode === 'huge-list-sse') return huge(mode === 'huge-list-sse');
            const page = Number(message.params?.cursor ?? 0);
            if (mode === 'endless-pages') return reply({ tools: [tool(`t${page}`)], nextCursor: String(page + 1) });
            if (mode === 'many-tools') {
              return reply({
                tools: Array.from({ length: 100 }, (_, i) => tool(`t${page * 100 + i}`)),
                ...(page < 5 && { nextCursor: String(page + 1) }),
              });
            }
            return reply({ tools: [tool('echo'), tool('other')] });
          }
          case 'tools/call':
            if (mode === 'huge-call') return huge(false);
            return reply({ content: [{ type: 'text', text: `${message.params?.name} ran` }] });
          case 'resources/list': {
            const page = Number(message.params?.cursor ?? 0);
            if (mode === 'endless-resources')
              return reply({ resources: [{ uri: `mem://${page}`, name: `r${page}` }], nextCursor: String(page + 1) });
            return reply({ resources: [{ uri: 'mem://big', name: 'big' }] });
          }
          case 'resources/read':
            return huge(false);
          default:
            return reply({});
        }
      })(),
  );
  const loopback = await listenLoopback(server);
  state.url = `${loopback.url}/mcp`;
  state.stop = loopback.close;
  return state;
}

/** A 150 MB reply made as it is sent, following backpressure, stopping when the client leaves. */
function streamHuge(res: http.ServerResponse, id: number, sse: boolean, sent: (bytes: number) => void): void {
  res.writeHead(200, { 'Content-Type': sse ? 'text/event-stream' : 'application/json' });
  const head = `${sse ? 'event: message\ndata: ' : ''}{"jsonrpc":"2.0","id":${id},"result":{"tools":[`;
  const chunk = Buffer.from(JSON.stringify(tool('padding')).concat(',').repeat(1000));
  let written = 0;
  res.write(head);
  const pump = () => {
    while (written < HUGE && !res.destroyed) {
      written += chunk.length;
      sent(chunk.length);
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end(`${JSON.stringify(tool('last'))}]}}${sse ? '\n\n' : ''}`);
  };
  res.on('close', () => res.removeAllListeners('drain'));
  pump();
}
