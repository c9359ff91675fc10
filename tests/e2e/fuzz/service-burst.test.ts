import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { contractProblems } from '../../support/fuzz/contract';
import { nastiestMcpBody, NastyBody } from '../../support/fuzz/nastiest-bodies';
import { RawResponse, sendRaw } from '../../support/fuzz/raw-http';
import { ServiceProcess, startService, waitForListening } from '../../support/service-process';
import { createTestDatabase, TestDatabase } from '../../support/test-database';
import { testCa } from '../../support/local-ca';
import { TEST_AUDIENCE, TEST_ISSUER, TestIdentityProvider } from '../../support/test-identity-provider';

/**
 * The compiled service in its own process, as `npm start` runs it (heap limit
 * included), hit by a concurrent burst of the largest and deepest /mcp bodies
 * the generators make. It must still be running and answering afterwards.
 */
jest.setTimeout(90_000);

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_110);
const BURST = 32;

let idp: TestIdentityProvider;
let db: TestDatabase;
let dataDir: string;
let service: ServiceProcess;
let key: string;
let outcomes: { body: NastyBody; result: RawResponse | Error }[] = [];

const mcpHeaders = () => ({
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
});
const toolsList = () =>
  sendRaw(
    service.baseUrl,
    { method: 'POST', path: '/mcp', headers: mcpHeaders(), body: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list"}') },
    10_000,
  );

beforeAll(async () => {
  // https: production refuses an http JWKS; the service trusts the test certificate.
  idp = await new TestIdentityProvider().start({ https: true });
  db = await createTestDatabase();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'keygate-fuzz-'));
  service = await waitForListening(
    startService({
      DATABASE_URL: db.url,
      JWT_JWKS_URI: idp.jwksUri,
      JWT_ISSUER: TEST_ISSUER,
      JWT_AUDIENCE: TEST_AUDIENCE,
      DATA_DIR: dataDir,
      NODE_ENV: 'production',
      NODE_EXTRA_CA_CERTS: (await testCa()).caFile,
      LOG_LEVEL: 'warn',
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      AUTH_FAILURE_LIMIT: '1000000',
      MCP_UPSTREAM_TIMEOUT_MS: '200',
    }),
  );
  const res = await fetch(`${service.baseUrl}/api/v1/api-keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${idp.token({ sub: crypto.randomUUID() })}`, 'Content-Type': 'application/json' },
    body: '{"name":"burst"}',
  });
  key = ((await res.json()) as { raw_key: string }).raw_key;
  const bodies = fc.sample(nastiestMcpBody, { numRuns: BURST, seed: SEED });
  outcomes = await Promise.all(
    bodies.map(async (body) => ({
      body,
      result: await sendRaw(
        service.baseUrl,
        { method: 'POST', path: '/mcp', headers: { ...mcpHeaders(), ...body.headers }, body: body.body },
        60_000,
      ).catch((e: Error) => e),
    })),
  );
});
afterAll(async () => {
  if (service?.child.exitCode === null) {
    service.child.kill('SIGTERM');
    await service.exited;
  }
  await db?.drop();
  await idp?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const problemsOf = (result: RawResponse | Error) =>
  result instanceof Error ? [`no answer, ${result.message}`] : contractProblems({ response: result, written: [] });
const describeOutcome = ({ body, result }: (typeof outcomes)[number]) =>
  `${body.label} (${body.body.length} bytes): ${result instanceof Error ? 'no answer' : `${result.status}, ${result.bytes} bytes`}; ${problemsOf(result).join('; ') || 'fine'}`;

describe(`a burst of ${BURST} of the nastiest /mcp bodies at the service process (seed ${SEED})`, () => {
  if (process.env.FUZZ_SURVEY) afterAll(() => console.log(outcomes.map(describeOutcome).join('\n')));

  it('leaves the process running, answering /healthz and tools/list', async () => {
    const exit = service.child.exitCode ?? service.child.signalCode;
    if (exit !== null)
      throw new Error(
        `the service exited (${exit}) during the burst:\n${outcomes.map(describeOutcome).join('\n')}\n${service.output().slice(-4000)}`,
      );
    expect((await sendRaw(service.baseUrl, { method: 'GET', path: '/healthz', headers: {} }, 10_000)).status).toBe(200);
    expect((await toolsList()).status).toBe(200);
  });

  it('answered every request of the burst, below 500 (JSON-RPC -32603 included) and within 64 KiB', () => {
    const bad = outcomes.filter(({ result }) => problemsOf(result).length > 0);
    if (bad.length > 0) throw new Error(`${bad.length} of ${BURST} answers broke the contract:\n${bad.map(describeOutcome).join('\n')}`);
  });
});
