import http from 'node:http';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import { LocalCa } from './local-ca';

export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * A tiny protected resource for OAuth client tests: an MCP path that answers
 * 401 with `WWW-Authenticate: Bearer resource_metadata=...`, and whatever
 * other routes a test sets (its RFC 9728 document, a slow or oversize one, a
 * redirect), on http, or on https with the test CA. `hits` lists the paths
 * asked for, in order.
 */
export class ProtectedResource {
  readonly routes = new Map<string, Route>();
  readonly hits: string[] = [];
  origin = '';
  private server?: http.Server;

  async start(options: { ca?: LocalCa; host?: string } = {}): Promise<this> {
    const handle: Route = (req, res) => {
      const path = req.url ?? '/';
      this.hits.push(path);
      const route = this.routes.get(path);
      if (route) route(req, res);
      else res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"not_found"}');
    };
    const { ca } = options;
    this.server = ca ? https.createServer({ key: ca.serverKey, cert: ca.serverCert }, handle) : http.createServer(handle);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const port = (this.server.address() as AddressInfo).port;
    this.origin = `${ca ? 'https' : 'http'}://${options.host ?? '127.0.0.1'}:${port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** `path` answers 401 with a Bearer challenge naming `metadataUrl` (and `scope`, when given). */
  challenge(path: string, metadataUrl: string, scope?: string): void {
    const params = [`resource_metadata="${metadataUrl}"`, ...(scope ? [`scope="${scope}"`] : [])];
    this.routes.set(path, (_req, res) => res.writeHead(401, { 'WWW-Authenticate': `Bearer ${params.join(', ')}` }).end());
  }

  /** `path` answers `document` as JSON. */
  json(path: string, document: unknown): void {
    this.routes.set(path, (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(document)));
  }
}
