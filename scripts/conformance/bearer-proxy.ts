import http from 'node:http';
import { AddressInfo } from 'node:net';

// Hop-by-hop headers belong to one connection and are not forwarded.
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'upgrade'];

/**
 * A loopback reverse proxy that adds `Authorization: Bearer <key>` to every
 * request, for clients that cannot send headers of their own (the conformance
 * suite). Everything else passes unchanged, the Host header included, so the
 * service's Host/Origin checks see what the client sent. Responses, event
 * streams included, are piped back as they arrive.
 */
export class BearerProxy {
  private constructor(
    private readonly server: http.Server,
    readonly origin: string,
  ) {}

  static async start(target: URL, key: string): Promise<BearerProxy> {
    const server = http.createServer((req, res) => {
      const headers = withoutHopByHop(req.headers);
      headers.authorization = `Bearer ${key}`;
      const upstream = http.request(
        { hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.headers));
          res.flushHeaders();
          answer.pipe(res);
        },
      );
      upstream.on('error', (error) => {
        if (res.headersSent) return void res.destroy(error);
        res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${error.message}\n`);
      });
      // The client went away mid-answer (an abandoned event stream): stop the upstream request too.
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const { port } = server.address() as AddressInfo;
    return new BearerProxy(server, `http://127.0.0.1:${port}`);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function withoutHopByHop(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const copy: http.OutgoingHttpHeaders = { ...headers };
  for (const name of HOP_BY_HOP) delete copy[name];
  return copy;
}
