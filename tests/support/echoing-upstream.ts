import http from 'node:http';
import { listenLoopback } from './listen-loopback';

/**
 * How an echoing upstream fails. Each one puts the request's headers (the
 * stored header values keygate sends) in what it says, the worst an upstream
 * can do with them: a 401 or 500 body, a JSON-RPC error message, a reply that
 * is not JSON-RPC, one past MCP_UPSTREAM_MAX_BYTES; `silent` never answers.
 */
export type EchoingMode = 'status-401' | 'status-500' | 'rpc-error' | 'malformed' | 'oversize' | 'silent';

export interface EchoingUpstream {
  url: string;
  stop(): Promise<void>;
}

/** A loopback HTTP server that fails every POST in one way, quoting the headers it received. */
export async function startEchoingUpstream(mode: EchoingMode, oversizeBytes = 2 * 1024 * 1024): Promise<EchoingUpstream> {
  const server = http.createServer(
    (req, res) =>
      void (async () => {
        let body = '';
        for await (const chunk of req) body += chunk;
        if (mode === 'silent') return; // the socket stays open until keygate gives up
        const echo = JSON.stringify(req.headers);
        const id = (JSON.parse(body || '{}') as { id?: number }).id ?? null;
        switch (mode) {
          case 'status-401':
            return void res.writeHead(401, { 'Content-Type': 'text/plain' }).end(`not authorized: ${echo}`);
          case 'status-500':
            return void res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: `failed for ${echo}` }));
          case 'rpc-error':
            return void res
              .writeHead(200, { 'Content-Type': 'application/json' })
              .end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: `refused ${echo}`, data: req.headers } }));
          case 'malformed':
            return void res
              .writeHead(200, { 'Content-Type': 'application/json' })
              .end(`{"jsonrpc":"2.0","id":${id},"result":${echo}, oops ${echo}`);
          case 'oversize':
            return void res
              .writeHead(200, { 'Content-Type': 'application/json' })
              .end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: `${echo}${' '.repeat(oversizeBytes)}${echo}` } }));
        }
      })(),
  );
  const loopback = await listenLoopback(server);
  return { url: `${loopback.url}/mcp`, stop: loopback.close };
}
