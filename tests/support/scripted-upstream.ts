import http from 'node:http';
import { listenLoopback, Loopback } from './listen-loopback';

/** One request the scripted upstream received. */
export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Answer = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export interface ScriptedUpstream {
  /** Its MCP endpoint, `http://127.0.0.1:<port>/mcp`, once the spec's beforeAll ran. */
  url: string;
  /** What it received since the test began (emptied before each test; a test may replace it). */
  seen: Seen[];
  /** How it answers: each test sets it. */
  answer: Answer;
}

/**
 * A loopback HTTP server for a spec: it records each request (its body read
 * whole) and answers with whatever `answer` the test set. Registers the
 * spec's hooks itself: started before all tests, `seen` emptied before each,
 * stopped after all.
 */
export function scriptedUpstream(): ScriptedUpstream {
  const upstream: ScriptedUpstream = { url: '', seen: [], answer: () => undefined };
  let server: Loopback;
  beforeAll(async () => {
    const listening = http.createServer(
      (req, res) =>
        void (async () => {
          let body = '';
          for await (const chunk of req) body += chunk;
          upstream.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
          upstream.answer(req, res, body);
        })(),
    );
    server = await listenLoopback(listening);
    upstream.url = `${server.url}/mcp`;
  });
  beforeEach(() => {
    upstream.seen = [];
  });
  afterAll(() => server.close());
  return upstream;
}
