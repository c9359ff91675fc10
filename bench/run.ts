import { chmodSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { DevTokenIssuer } from '../src/adapters/auth/dev-token-issuer';
import { LocalPostgres } from '../src/infrastructure/database/local-postgres';
import { SERVICE_NODE_FLAGS } from '../src/infrastructure/server/node-flags';
import { load, LoadResult } from './load';
import { cpuSeconds, peakRssMb, startListening } from './processes';
import { validateInProcess } from './validate-in-process';

/**
 * npm run bench: the service on a real PostgreSQL, loaded by autocannon from a
 * second process. Prints the four figures and the three targets, and writes
 * them to bench/results/latest.json.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
/**
 * (a) and (b) run in alternating rounds that add up to SECONDS each: on a
 * shared machine whose speed drifts from one second to the next, back-to-back
 * runs would measure the drift as much as the service.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const WARM_UP_SECONDS = 2;
/** Request lines off by default: the figures are the service's, not its log shipping's. */
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROOT = path.resolve(__dirname, '..', '..');
/** By default the flags `npm start` and the Dockerfile run the service with. */
const NODE_FLAGS = process.env.BENCH_SERVICE_NODE_FLAGS?.split(' ').filter(Boolean) ?? SERVICE_NODE_FLAGS;
const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
/** A built-in tool call: one PostgreSQL read by primary key, and one tool.called event queued for the batch writer. */
const toolsCall = (args: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'projects', arguments: args } });

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'keygate-bench-'));
  chmodSync(scratch, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its directory
  const pg = process.env.BENCH_DATABASE_URL ? null : await LocalPostgres.start({ dir: path.join(scratch, 'pg'), throwaway: true });
  const url = process.env.BENCH_DATABASE_URL ?? (await freshDatabase(pg!.url));
  const dataDir = path.join(scratch, 'data');
  mkdirSync(dataDir);
  const env = { ...process.env, DATABASE_URL: url, DATA_DIR: dataDir, PORT: '0', NODE_ENV: 'development', LOG_LEVEL, AUTH_FAILURE_LIMIT: '1000000' };
  const bare = await startListening(path.join(ROOT, 'dist', 'bench', 'bare-express.js'), env);
  const service = await startListening(path.join(ROOT, 'dist', 'src', 'infrastructure', 'server', 'main.js'), env, NODE_FLAGS);
  try {
    const token = DevTokenIssuer.loadOrCreate(dataDir).mint({ sub: crypto.randomUUID() });
    const created = await fetch(`${service.baseUrl}/api/v1/api-keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    const { raw_key: rawKey } = (await created.json()) as { raw_key: string };
    const mcp = (key: string, seconds: number, body = TOOLS_LIST) => ({
      url: `${service.baseUrl}/mcp`,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
      body,
      seconds,
      connections: CONNECTIONS,
    });
    const bareJson = (seconds: number) => ({ url: `${bare.baseUrl}/bare`, headers: { 'content-type': 'application/json' }, body: TOOLS_LIST, seconds, connections: CONNECTIONS });
    await load(bareJson(WARM_UP_SECONDS));
    await load(mcp(rawKey, WARM_UP_SECONDS));
    const rounds: { a: Measured; b: Measured }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const a = await measured(bare.child.pid!, () => load(bareJson(SECONDS / ROUNDS)));
      const b = await measured(service.child.pid!, () => load(mcp(rawKey, SECONDS / ROUNDS)));
      rounds.push({ a, b });
    }
    const a = combined(rounds.map((r) => r.a));
    const b = combined(rounds.map((r) => r.b));
    const roundRatios = rounds.map((r) => round3(r.b.requests / r.a.requests));
    const c = await measured(service.child.pid!, () => load(mcp(`svc_${'0'.repeat(64)}`, SECONDS)));
    const projectId = await createProject(service.baseUrl, rawKey);
    const e = await measured(service.child.pid!, () => load(mcp(rawKey, SECONDS, toolsCall({ action: 'get', id: projectId }))));
    const audited = await toolCallEvents(url, e.statusCounts['200'] ?? 0);
    const d = await validateInProcess(url);
    const rss = { serviceMb: peakRssMb(service.child.pid!), benchProcessMb: peakRssMb(process.pid) };
    report({ a, b, c, d, e, audited, rss, roundRatios });
  } finally {
    await service.stop();
    await bare.stop();
    await pg?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Adds the target's CPU time per answered request, which does not depend on how busy the load generator keeps it. */
async function measured(pid: number, run: () => Promise<LoadResult>): Promise<Measured> {
  const before = cpuSeconds(pid);
  const result = await run();
  const cpu = cpuSeconds(pid) - before;
  return { ...result, cpuSeconds: cpu, cpuMicrosPerRequest: Math.round((cpu / result.requests) * 1e6) };
}

type Measured = LoadResult & { cpuSeconds: number; cpuMicrosPerRequest: number };

/** Rounds of equal length as one run: mean req/s, median p50, worst p99. */
function combined(rounds: Measured[]): Measured {
  const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
  const cpu = rounds.reduce((sum, r) => sum + r.cpuSeconds, 0);
  const statusCounts: Record<string, number> = {};
  for (const r of rounds) for (const [status, n] of Object.entries(r.statusCounts)) statusCounts[status] = (statusCounts[status] ?? 0) + n;
  const p50s = rounds.map((r) => r.p50Ms).sort((x, y) => x - y);
  return {
    requests,
    requestsPerSecond: Math.round((rounds.reduce((sum, r) => sum + r.requestsPerSecond, 0) / rounds.length) * 10) / 10,
    p50Ms: p50s[Math.floor(p50s.length / 2)],
    p99Ms: Math.max(...rounds.map((r) => r.p99Ms)),
    statusCounts,
    cpuSeconds: Math.round(cpu * 100) / 100,
    cpuMicrosPerRequest: Math.round((cpu / requests) * 1e6),
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function report(figures: {
  a: Measured;
  b: Measured;
  c: Measured;
  d: Awaited<ReturnType<typeof validateInProcess>>;
  e: Measured;
  audited: { calls: number; events: number };
  rss: { serviceMb: number; benchProcessMb: number };
  roundRatios: number[];
}) {
  const { a, b, c, d, e, audited, rss, roundRatios } = figures;
  // Rounds of (a) and (b) last equally long, so the ratio of answered requests is the ratio of throughputs.
  const ratio = round3(b.requests / a.requests);
  const targets = {
    'tools/list vs bare Express >= 0.7': ratio >= 0.7,
    'ValidateKey median < 20 us': d.medianMicros < 20,
    'service peak RSS < 200 MB': rss.serviceMb < 200,
  };
  const line = (name: string, r: Measured) =>
    `${name.padEnd(34)} ${r.requestsPerSecond.toFixed(0).padStart(8)} req/s  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  cpu ${r.cpuMicrosPerRequest} us/req  statuses ${JSON.stringify(r.statusCounts)}`;
  console.log(`\nkeygate benchmark (${SECONDS} s per figure, (a) and (b) alternating in ${ROUNDS} rounds; ${CONNECTIONS} connections; autocannon in its own process)`);
  console.log(line('(a) bare Express JSON', a));
  console.log(line('(b) /mcp tools/list, valid key', b));
  console.log(line('(c) /mcp unknown key (401)', c));
  console.log(`${'(d) ValidateKey.execute, cached'.padEnd(34)} ${String(d.opsPerSecond).padStart(8)} ops/s  median ${d.medianMicros} us  p99 ${d.p99Micros} us`);
  console.log(line('(e) /mcp tools/call get, audited', e));
  console.log(`    tool.called events in audit_events 2 s later: ${audited.events} of ${audited.calls} answered calls`);
  console.log(`ratio (b)/(a): ${ratio} (rounds: ${roundRatios.join(', ')})   peak RSS: service ${rss.serviceMb} MB, bench process ${rss.benchProcessMb} MB`);
  for (const [name, ok] of Object.entries(targets)) console.log(`${ok ? 'PASS' : 'MISS'}  ${name}`);
  const machine = { cpu: os.cpus()[0]?.model, cores: os.cpus().length, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}` };
  const out = path.join(ROOT, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  const serviceNodeFlags = NODE_FLAGS.join(' ');
  const result = { date: new Date().toISOString(), machine, seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, serviceNodeFlags, logLevel: LOG_LEVEL, bareExpress: a, toolsList: b, unknownKey: c, validateKeyInProcess: d, toolsCallAudited: e, toolCallEvents: audited, ratio, roundRatios, peakRss: rss, targets };
  writeFileSync(path.join(out, 'latest.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(`written to bench/results/latest.json`);
  if (Object.values(targets).some((ok) => !ok)) process.exitCode = 1;
}

/** A project record for (e) to read, made through /mcp (itself one tool.called event, left out of the count). */
async function createProject(baseUrl: string, rawKey: string): Promise<string> {
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': rawKey },
    body: toolsCall({ action: 'create', data: { name: 'bench' } }),
  });
  const body = (await res.json()) as { result: { structuredContent: { record: { id: string } } } };
  return body.result.structuredContent.record.id;
}

/** How many tool.called events the batch writer has stored, read once its queue has had time to drain. */
async function toolCallEvents(url: string, calls: number): Promise<{ calls: number; events: number }> {
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const [{ n }] = (await client.query(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'tool.called' AND details->>'action' = 'get'`)).rows;
    return { calls, events: n };
  } finally {
    await client.end();
  }
}

async function freshDatabase(adminUrl: string): Promise<string> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  await client.query('CREATE DATABASE keygate_bench');
  await client.end();
  const u = new URL(adminUrl);
  u.pathname = '/keygate_bench';
  return u.toString();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
