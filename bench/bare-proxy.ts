import { createServer, IncomingMessage } from 'node:http';
import { Pool as PgPool } from 'pg';
import { Pool } from 'undici';

/**
 * (j)'s floor: the fewest moves a gateway that records each call can make,
 * with nothing of ours in the way. It reads the POST, sends it on to the
 * upstream (UPSTREAM_URL) through an undici pool as the service does,
 * inserts one row per answer into PostgreSQL (DATABASE_URL, the same socket
 * the service uses) and answers only after that commit, as keygate answers
 * only once a call's audit event is committed. No key, no scopes, no JSON
 * parsed. What it adds over the upstream called directly is what this
 * machine charges for the hops alone; (j)'s figure less it is keygate's own
 * work.
 */
const upstream = new URL(process.env.UPSTREAM_URL ?? '');
const upstreamPool = new Pool(upstream.origin, { connections: 64 });
const db = new PgPool({ connectionString: process.env.DATABASE_URL, max: 10 });
const PASSED_ON = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id'];
const PASSED_BACK = ['content-type', 'mcp-session-id'];

const server = createServer((req, res) => {
  void readBody(req)
    .then(async (body) => {
      const headers: Record<string, string> = {};
      for (const name of PASSED_ON) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const answer = await upstreamPool.request({ path: upstream.pathname, method: 'POST', headers, body });
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      await db.query('INSERT INTO bench_floor_calls (details) VALUES ($1)', [JSON.stringify({ status: answer.statusCode })]);
      const back: Record<string, string> = {};
      for (const name of PASSED_BACK) {
        const value = answer.headers[name];
        if (typeof value === 'string') back[name] = value;
      }
      res.writeHead(answer.statusCode, back).end(bytes);
    })
    .catch((error: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(String(error));
    });
});

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

void db.query('CREATE TABLE IF NOT EXISTS bench_floor_calls (id bigserial PRIMARY KEY, details jsonb NOT NULL)').then(() => {
  server.listen(0, '127.0.0.1', () => {
    const address = server.address() as { port: number };
    process.stdout.write(`listening on http://localhost:${address.port}\n`);
  });
});
process.once('SIGTERM', () => server.close(() => void Promise.all([db.end(), upstreamPool.close()]).finally(() => process.exit(0))));
