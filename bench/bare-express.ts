import express from 'express';
import { Pool } from 'pg';
import { BUILT_IN_TOOLS } from '../src/application/use-cases/gateway/built-in/built-in-tools';
import { toMcpTool } from '../src/adapters/mcp/tool-presenter';
import { modernResultBody } from '../src/adapters/mcp/era/modern-answer';
import { serverInfoFor } from '../src/adapters/mcp/mcp-server.factory';

/**
 * The ceilings, with nothing of ours in the way (no key, no logging, no
 * metrics):
 * - `/bare` (a): Express parsing a JSON body and answering with the same
 *   bytes a full-access tools/list returns, so the ratio measures our
 *   overhead rather than the size of the answer;
 * - `/bare-modern` (a, for (b′)): the same for a 2026-07-28 tools/list, whose
 *   answer also carries resultType, the caching hints and serverInfo;
 * - `/row` (a′): the same tools/call body (e) sends, answered with the one
 *   row it names, read by primary key from the same PostgreSQL through a
 *   node-postgres pool as large as the service's, as a minimal real service
 *   would.
 */
const body = { jsonrpc: '2.0', id: 1, result: { tools: BUILT_IN_TOOLS.map(toMcpTool) } };
const modernBody: unknown = JSON.parse(
  modernResultBody(1, 'tools/list', { tools: BUILT_IN_TOOLS.map(toMcpTool) }, { serverInfo: serverInfoFor() }),
);
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = express();
app.disable('x-powered-by');
app.use(express.json());
app.post('/bare', (_req, res) => {
  res.json(body);
});
app.post('/bare-modern', (_req, res) => {
  res.json(modernBody);
});
app.post('/row', async (req, res) => {
  const call = req.body as { id?: unknown; params?: { arguments?: { id?: unknown } } } | undefined;
  const id = call?.params?.arguments?.id;
  if (typeof id !== 'string') return void res.status(400).json({ error: 'params.arguments.id must be a string' });
  const { rows } = await pool.query<Record<string, unknown>>(
    'SELECT id, data, created_at, updated_at FROM resource_records WHERE id = $1',
    [id],
  );
  if (rows.length === 0) return void res.status(404).json({ error: 'not found' });
  res.json({ jsonrpc: '2.0', id: call?.id ?? null, result: { record: rows[0] } });
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`listening on http://localhost:${address.port}\n`);
});
process.once('SIGTERM', () => server.close(() => void pool.end().finally(() => process.exit(0))));
