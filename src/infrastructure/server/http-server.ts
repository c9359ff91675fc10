import http, { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { OperationsConfig } from '../config/config';

export interface AppServer {
  server: http.Server;
  /** Answers every request with `app`, its requests and responses made with the app's prototypes. */
  serve(this: void, app: Express): void;
}

/**
 * The HTTP server with its header limit: a request line plus headers over
 * MAX_HEADER_BYTES is answered 431 by Node before any handler runs. Bodies are
 * limited where they are parsed.
 *
 * Its requests and responses are made with the served app's `request` and
 * `response` as their prototypes, which Express would otherwise set on each
 * with Object.setPrototypeOf. On V8 an object whose prototype was changed
 * outlives the young generation's collections: every request's whole graph
 * (headers, body, closures, the answer) was promoted to the old generation,
 * ~6 KB per request even for /healthz, and the major collections that growth
 * set off were most of the tail latency of /mcp at a steady rate. Made with
 * the right prototype, Express's setPrototypeOf changes nothing and they die
 * young: a bare Express app served so promotes ~20 bytes a request instead
 * of ~5.7 KB, keygate's /healthz ~1.4 KB instead of ~6 KB.
 */
export function createHttpServer(ops: Pick<OperationsConfig, 'maxHeaderBytes'>): AppServer {
  // Constructor functions rather than classes, whose `prototype` cannot be reassigned once the app exists.
  function AppRequest(this: IncomingMessage, socket: Socket) {
    (IncomingMessage as unknown as (this: IncomingMessage, socket: Socket) => void).call(this, socket);
  }
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: unknown) {
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: unknown) => void).call(this, req, options);
  }
  AppRequest.prototype = IncomingMessage.prototype;
  AppResponse.prototype = ServerResponse.prototype;
  const server = http.createServer({
    maxHeaderSize: ops.maxHeaderBytes,
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
  });
  return {
    server,
    serve(app) {
      AppRequest.prototype = app.request;
      AppResponse.prototype = app.response;
      server.on('request', app);
    },
  };
}
