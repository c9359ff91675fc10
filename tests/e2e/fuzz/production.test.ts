import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { auditTrailBytes } from '../../support/fuzz/fuzz-app';
import { auditRequest } from '../../support/fuzz/audit-requests';
import { check, FuzzTarget } from '../../support/fuzz/contract';
import { mcpCredentials, restCredentials } from '../../support/fuzz/credentials';
import { snapshotter } from '../../support/fuzz/db-snapshot';
import { FuzzRequest } from '../../support/fuzz/fuzz-request';
import { fuzz } from '../../support/fuzz/fuzz-runner';
import { leakReportRequest } from '../../support/fuzz/leak-reports';
import { McpFixture, mcpBody, mcpMessages } from '../../support/fuzz/mcp-messages';
import { mcpRequest } from '../../support/fuzz/mcp-requests';
import { sendRaw } from '../../support/fuzz/raw-http';
import { EVERYTHING, RestFixture, restRequest, restRoutes } from '../../support/fuzz/rest-requests';
import { LocalCa, makeLocalCa, serveJsonOverHttps } from '../../support/local-ca';
import { ServiceProcess, startService, waitForListening } from '../../support/service-process';
import { createTestDatabase, TestDatabase } from '../../support/test-database';
import { TEST_AUDIENCE, TEST_ISSUER, TestIdentityProvider } from '../../support/test-identity-provider';
import { scannerKey, TestSecretScanner } from '../../support/test-secret-scanner';

/**
 * The compiled service in its own process with NODE_ENV=production: the
 * users' JWKS and the secret scanner's key list served over https with a
 * throwaway CA it trusts through NODE_EXTRA_CA_CERTS, SECRETS_KEY set, /mcp
 * an OAuth protected resource. REST, /mcp, the audit trail and leak reports
 * are fuzzed against it with the contract of the other files: no 5xx (nor
 * -32603), no answer over its bound, no row written by a 4xx, and the
 * process still running and answering.
 */
jest.setTimeout(120_000);

const RESOURCE_URL = 'https://keygate.test/mcp';

let dir: string;
let ca: LocalCa;
let tls: Awaited<ReturnType<typeof serveJsonOverHttps>>;
const idp = new TestIdentityProvider();
const scanner = new TestSecretScanner();
let db: TestDatabase;
let service: ServiceProcess;
let target: FuzzTarget;
let rest: RestFixture;
let mcp: McpFixture;
let leaks: { keys: typeof scanner.keys; rawKeys: string[] };
let audit: Parameters<typeof auditRequest>[0];

/** One JSON request to the service; throws unless it answers `status`. */
async function api(method: string, url: string, token: string, body?: unknown, status = 200): Promise<Record<string, unknown>> {
  const res = await fetch(`${service.baseUrl}${url}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status !== status) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
  return res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'keygate-production-fuzz-'));
  ca = await makeLocalCa(dir);
  scanner.keys.unshift(scannerKey());
  tls = await serveJsonOverHttps(ca, {
    '/jwks.json': () => idp.jwks(),
    '/meta/public_keys/secret_scanning': () => scanner.keyList(),
    '/.well-known/openid-configuration': () => ({ issuer: tls.origin }),
  });
  db = await createTestDatabase();
  service = await waitForListening(
    startService({
      NODE_ENV: 'production',
      NODE_EXTRA_CA_CERTS: ca.caFile,
      DATABASE_URL: db.url,
      DATA_DIR: dir,
      LOG_LEVEL: 'warn',
      JWT_JWKS_URI: `${tls.origin}/jwks.json`,
      JWT_ISSUER: TEST_ISSUER,
      JWT_AUDIENCE: TEST_AUDIENCE,
      SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
      SECRET_SCANNING_KEYS_URL: `${tls.origin}/meta/public_keys/secret_scanning`,
      OIDC_ISSUER: tls.origin,
      MCP_RESOURCE_URL: RESOURCE_URL,
      MCP_AUTHORIZATION_SERVERS: TEST_ISSUER,
      AUTH_FAILURE_LIMIT: '1000000',
      MCP_UPSTREAM_TIMEOUT_MS: '200',
    }),
  );
  const users = { admin: randomUUID(), a: randomUUID(), b: randomUUID() };
  const admin = idp.token({ sub: users.admin, roles: ['admin'] });
  const userA = idp.token({ sub: users.a });
  const key = async (sub: string, scopes: string[]) =>
    (await api('POST', '/api/v1/api-keys', idp.token({ sub }), { name: 'fixture', scopes }, 201)) as { id: string; raw_key: string };
  const [full, narrow, revoked, other] = [
    await key(users.a, []),
    await key(users.a, ['projects:read', 'agents:write', 'chat:read']),
    await key(users.a, ['projects:read']),
    await key(users.b, []),
  ];
  await api('DELETE', `/api/v1/api-keys/${revoked.id}`, userA, undefined, 204);
  const system = ((await api('GET', '/api/v1/agent-roles', admin)) as unknown as { id: string }[]).map((r) => r.id);
  const role = (await api('POST', '/api/v1/agent-roles', admin, { name: 'fixture-role', platform_scopes: ['projects:read'] }, 201))
    .id as string;
  const mode = (await api('POST', '/api/v1/mode-tool-configs', admin, { mode: 'build', additional_scopes: ['projects:write'] }, 201))
    .id as string;
  const session = (await api('POST', '/api/v1/mode-sessions', userA, { agent_role_id: role, mode: 'build' }, 201)).id as string;
  rest = {
    credentials: restCredentials(idp, users, full.raw_key),
    userIds: Object.values(users),
    keyIds: [full.id, narrow.id, revoked.id, other.id],
    roleIds: [...system, role],
    modeIds: [mode],
    modeNames: ['build', 'Build', 'review'],
    sessionIds: [session],
  };
  const call = async (tool: string, args: Record<string, unknown>) => {
    const res = await api('POST', '/mcp', full.raw_key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool, arguments: { action: 'create', ...args } },
    });
    const { record, item } = (res.result as { structuredContent: { record?: { id: string }; item?: { id: string } } }).structuredContent;
    return (record ?? item)!.id;
  };
  const project = await call('projects', { data: { name: 'fixture', tags: ['a'] } });
  const accessToken = idp.token({ sub: users.a, audience: RESOURCE_URL, extra: { scope: 'projects:read chat:read' } });
  mcp = {
    credentials: [
      ...mcpCredentials({ full: full.raw_key, narrow: narrow.raw_key, revoked: revoked.raw_key }, userA),
      { label: 'MCP access token', headers: { Authorization: `Bearer ${accessToken}` } },
    ],
    recordIds: [project, await call('agents', { data: { name: 'fixture agent' } })],
  };
  const firstPage = await api('GET', '/api/v1/audit-events?limit=2', admin);
  audit = { credentials: rest.credentials, userIds: rest.userIds, keyIds: rest.keyIds, cursors: [firstPage.next_cursor as string] };
  // Keys only the leak reports name, so revoking them leaves the other properties' keys alone.
  leaks = { keys: scanner.keys, rawKeys: await Promise.all([1, 2, 3, 4].map(async () => (await key(users.b, [])).raw_key)) };
  target = {
    baseUrl: service.baseUrl,
    // The child answers a tool call once its audit event is committed, so a snapshot after an answer holds what it wrote.
    snapshot: await snapshotter(db.dataSource),
    stored: { auditTrailBytes: () => auditTrailBytes(service.baseUrl, `Bearer ${admin}`) },
  };
}, 120_000);

afterAll(async () => {
  if (service?.child.exitCode === null) {
    service.child.kill('SIGTERM');
    await service.exited;
  }
  await db?.drop();
  await tls?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const RUNS = { numRuns: 60, timeLimitMs: 6_000 };
const contract = (req: FuzzRequest) => check(target, req);

describe('fuzzing the service in production mode (https JWKS and key list through a local CA)', () => {
  it('REST: every route, everything generated at once', async () => {
    await fuzz('production REST', service.baseUrl, restRequest(rest, Object.values(restRoutes(rest)).flat(), EVERYTHING), contract, RUNS);
    // The users' tokens were checked against the JWKS fetched over https.
    expect(tls.hits.get('/jwks.json')).toBeGreaterThan(0);
  });

  it('/mcp: every method, headers and credentials (keys and an OAuth access token) generated too', async () => {
    const { any, batch } = mcpMessages(mcp);
    await fuzz('production MCP', service.baseUrl, mcpRequest(mcp, mcpBody(any, batch)), contract, RUNS);
    await fuzz('production MCP headers', service.baseUrl, mcpRequest(mcp, mcpBody(any, batch), true), contract, { ...RUNS, numRuns: 30 });
  });

  it('GET /api/v1/audit-events, JSON and NDJSON', async () => {
    await fuzz('production audit-events', service.baseUrl, auditRequest(audit), contract, RUNS);
  });

  it('leak reports, validly signed with keys listed over https, then with generated signatures', async () => {
    await fuzz('production leak reports signed', service.baseUrl, leakReportRequest(leaks, true), contract, RUNS);
    expect(tls.hits.get('/meta/public_keys/secret_scanning')).toBeGreaterThan(0);
    await fuzz('production leak reports headers', service.baseUrl, leakReportRequest(leaks, false), contract, { ...RUNS, numRuns: 30 });
  });

  it('leaves the process running, answering /healthz and a key on /mcp', async () => {
    expect(service.child.exitCode ?? service.child.signalCode).toBeNull();
    expect((await sendRaw(service.baseUrl, { method: 'GET', path: '/healthz', headers: {} })).status).toBe(200);
    const good = mcp.credentials.find((c) => c.label === 'narrow key')!;
    const res = await sendRaw(service.baseUrl, {
      method: 'POST',
      path: '/mcp',
      headers: { ...good.headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'),
    });
    expect(res.status).toBe(200);
  });
});
