import http from 'node:http';
import { AddressInfo } from 'node:net';
import { Express } from 'express';

/**
 * One HTTP request exactly as generated: the body is sent byte for byte and no
 * header is added but Host (and Content-Length unless `chunked`). supertest
 * would pick a Content-Type and serialise bodies itself, which is what a fuzzer
 * must not let happen.
 */
export interface RawRequest {
  method: string;
  /** Path and query, already encoded as they go on the request line. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send the body with Transfer-Encoding: chunked instead of a Content-Length. */
  chunked?: boolean;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Every byte of the response body, counted even past `body`'s cap. */
  bytes: number;
  /** The first MAX_KEPT_BYTES of the body. */
  body: Buffer;
}

const MAX_KEPT_BYTES = 4 * 1024 * 1024;

/** Sends on a fresh connection (no keep-alive), so one request's leftovers never reach the next. */
export function sendRaw(baseUrl: string, request: RawRequest, timeoutMs = 20_000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const headers: Record<string, string | number> = { ...request.headers };
  if (request.body !== undefined && !request.chunked) headers['Content-Length'] = request.body.length;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(
      { host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent: false, timeout: timeoutMs },
      (res) => {
        answered = true;
        const kept: Buffer[] = [];
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          if (bytes < MAX_KEPT_BYTES) kept.push(chunk);
          bytes += chunk.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, body: Buffer.concat(kept) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    // A server may answer (413, 401) and close before it has read the whole body: the write then fails
    // after the response arrived, which is not an error of the exchange.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (request.body !== undefined && request.body.length > 0) req.write(request.body);
    req.end();
  });
}

/** The in-process app on a loopback port, so requests go through a real socket like sendRaw's. */
export async function listen(app: Express): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
