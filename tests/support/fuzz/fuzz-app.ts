import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from '../test-app';
import { snapshotter } from './db-snapshot';
import { FuzzTarget } from './contract';
import { listen, sendRaw } from './raw-http';

export interface FuzzApp extends FuzzTarget {
  t: TestApp;
  close(): Promise<void>;
}

/**
 * The in-process app on a real port, with the per-address failure limit out
 * of the way (fuzzing bad credentials would otherwise turn every later
 * request into a 429) and upstream MCP servers given up on quickly. `env`
 * adds to that (a secret scanner's key list, say).
 */
export async function startFuzzApp(env: Record<string, string> = {}): Promise<FuzzApp> {
  const t = await startTestApp({ AUTH_FAILURE_LIMIT: '1000000', MCP_UPSTREAM_TIMEOUT_MS: '200', ...env });
  const server = await listen(t.app);
  const snapshot = await snapshotter(t.db.dataSource);
  const admin = `Bearer ${t.adminToken(randomUUID())}`;
  return {
    t,
    baseUrl: server.baseUrl,
    // A tool call is answered once its audit event is committed: each event lands with the request that made it.
    snapshot,
    stored: { auditTrailBytes: () => auditTrailBytes(server.baseUrl, admin) },
    async close() {
      await server.close();
      await t.close();
    },
  };
}

/** The whole trail as the API writes it: the NDJSON export of every event, as an admin. */
export async function auditTrailBytes(baseUrl: string, adminAuthorization: string): Promise<number> {
  const res = await sendRaw(baseUrl, {
    method: 'GET',
    path: '/api/v1/audit-events',
    headers: { Authorization: adminAuthorization, Accept: 'application/x-ndjson' },
  });
  if (res.status !== 200) throw new Error(`the audit export answered ${res.status}`);
  return res.bytes;
}
