import { startTestApp, TestApp } from '../test-app';
import { snapshotter } from './db-snapshot';
import { FuzzTarget } from './contract';
import { listen } from './raw-http';

export interface FuzzApp extends FuzzTarget {
  t: TestApp;
  close(): Promise<void>;
}

/**
 * The in-process app on a real port, with the per-address failure limit out
 * of the way (fuzzing bad credentials would otherwise turn every later
 * request into a 429) and upstream MCP servers given up on quickly.
 */
export async function startFuzzApp(): Promise<FuzzApp> {
  const t = await startTestApp({ AUTH_FAILURE_LIMIT: '1000000', MCP_UPSTREAM_TIMEOUT_MS: '200' });
  const server = await listen(t.app);
  const snapshot = await snapshotter(t.db.dataSource);
  return {
    t,
    baseUrl: server.baseUrl,
    // A tool call is answered once its audit event is committed: each event lands with the request that made it.
    snapshot,
    async close() {
      await server.close();
      await t.close();
    },
  };
}
