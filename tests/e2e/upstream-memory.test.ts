import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RawUpstream, RawUpstreamMode, startRawUpstream } from '../support/raw-upstream';
import { ServiceProcess, startService, waitForListening } from '../support/service-process';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { TEST_AUDIENCE, TEST_ISSUER, TestIdentityProvider } from '../support/test-identity-provider';

jest.setTimeout(120_000);

let idp: TestIdentityProvider;
let db: TestDatabase;
let dataDir: string;
let service: ServiceProcess;
const upstreams: RawUpstream[] = [];
beforeAll(async () => {
  idp = await new TestIdentityProvider().start();
  db = await createTestDatabase();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'keygate-upstream-memory-'));
  service = await waitForListening(
    startService({
      DATABASE_URL: db.url,
      JWT_JWKS_URI: idp.jwksUri,
      JWT_ISSUER: TEST_ISSUER,
      JWT_AUDIENCE: TEST_AUDIENCE,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8',
      MCP_UPSTREAM_TIMEOUT_MS: '20000',
    }),
  );
});
afterAll(async () => {
  service.child.kill('SIGTERM');
  await service.exited;
  await Promise.all(upstreams.map((u) => u.stop()));
  await db.drop();
  await idp.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Peak resident set of the service process so far, in MB (Linux). */
const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${service.child.pid}/status`, 'utf8'))![1]) / 1024;

async function mcp(key: string, body: unknown): Promise<{ result: { tools?: { name: string }[]; isError?: boolean } }> {
  const res = await fetch(`${service.baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

/** A user with a key and one registered upstream of each given mode. */
async function userWith(modes: RawUpstreamMode[]): Promise<string> {
  const auth = { Authorization: `Bearer ${idp.token({ sub: crypto.randomUUID() })}`, 'Content-Type': 'application/json' };
  const key = (
    (await (await fetch(`${service.baseUrl}/api/v1/api-keys`, { method: 'POST', headers: auth, body: '{"name":"k"}' })).json()) as {
      raw_key: string;
    }
  ).raw_key;
  for (const [i, mode] of modes.entries()) {
    const upstream = await startRawUpstream(mode);
    upstreams.push(upstream);
    const data = { name: `u${i}`, url: upstream.url };
    await mcp(key, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mcp_servers', arguments: { action: 'create', data } } });
  }
  return key;
}

describe('memory under hostile upstreams', () => {
  it('stays under 250 MB RSS while three requests read 150 MB upstream replies at once, and keeps answering', async () => {
    const modes: RawUpstreamMode[] = ['huge-list-json', 'huge-list-sse', 'huge-initialize', 'huge-call', 'plain'];
    const keys = await Promise.all([1, 2, 3].map(() => userWith(modes)));
    const lists = await Promise.all(keys.map((key) => mcp(key, { jsonrpc: '2.0', id: 2, method: 'tools/list' })));
    for (const list of lists) {
      expect(
        list.result
          .tools!.map((tool) => tool.name)
          .filter((name) => name.includes('__'))
          .sort(),
      ).toEqual(['u3__echo', 'u3__other', 'u4__echo', 'u4__other']);
    }
    const calls = await Promise.all(
      keys.map((key) => mcp(key, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'u3__echo', arguments: {} } })),
    );
    expect(calls.every((reply) => reply.result.isError === true)).toBe(true);
    expect(upstreams.filter((u) => u.hugeBytesSent > 0)).toHaveLength(12);

    expect(peakRssMb()).toBeLessThan(250);
    const after = await mcp(keys[0], { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'u4__echo', arguments: {} } });
    expect(after.result.isError).toBeUndefined();
  });
});
