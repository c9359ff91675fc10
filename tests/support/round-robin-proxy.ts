import http from 'node:http';
import { listenLoopback } from './listen-loopback';

export interface RoundRobinProxy {
  url: string;
  /** Which backend each request went to, in order. */
  routed: { method: string; backend: number }[];
  close(): Promise<void>;
}

/** A plain HTTP proxy sending each request to the next backend in turn: no sticky sessions. */
export async function startRoundRobinProxy(backends: string[]): Promise<RoundRobinProxy> {
  let next = 0;
  const routed: RoundRobinProxy['routed'] = [];
  const server = http.createServer((req, res) => {
    const backend = next++ % backends.length;
    routed.push({ method: req.method ?? '', backend });
    const target = new URL(req.url ?? '/', backends[backend]);
    const upstream = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  const { url, close } = await listenLoopback(server);
  return { url, routed, close };
}
