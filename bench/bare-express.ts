import express from 'express';
import { BUILT_IN_TOOLS } from '../src/application/use-cases/tools/built-in/built-in-tools';
import { toMcpTool } from '../src/adapters/mcp/tool-presenter';

/**
 * The ceiling: Express parsing a JSON body and answering with the same bytes a
 * full-access tools/list returns (the six built-in tools), with nothing of ours
 * in the way: no key, no logging, no metrics. The ratio then measures our
 * overhead rather than the size of the answer.
 */
const body = { jsonrpc: '2.0', id: 1, result: { tools: BUILT_IN_TOOLS.map(toMcpTool) } };
const app = express();
app.disable('x-powered-by');
app.use(express.json());
app.post('/bare', (_req, res) => {
  res.json(body);
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`listening on http://localhost:${address.port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
