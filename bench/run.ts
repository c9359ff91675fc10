import { chmodSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { DevTokenIssuer } from '../src/adapters/auth/dev-token-issuer';
import { LocalPostgres } from '../src/infrastructure/database/local-postgres';
import { load, LoadResult } from './load';
import { cpuSeconds, peakRssMb, startListening } from './processes';
import { validateInProcess } from './validate-in-process';

/**
 * npm run bench: the service on a real PostgreSQL, loaded by autocannon from a
 * second process. Prints the four figures and the three targets, and writes
 * them to bench/results/latest.json.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROOT = path.resolve(__dirname, '..', '..');
/** The flags `npm start` and the Dockerfile run the service with. */
const SERVICE_NODE_FLAGS = (process.env.BENCH_SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'keygate-bench-'));
  chmodSync(scratch, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its directory
  const pg = process.env.BENCH_DATABASE_URL ? null : await LocalPostgres.start({ dir: path.join(scratch, 'pg'), throwaway: true });
  const url = process.env.BENCH_DATABASE_URL ?? (await freshDatabase(pg!.url));
  const dataDir = path.join(scratch, 'data');
  mkdirSync(dataDir);
  const env = { ...process.env, DATABASE_URL: url, DATA_DIR: dataDir, PORT: '0', NODE_ENV: 'development', LOG_LEVEL: 'warn', AUTH_FAILURE_LIMIT: '1000000' };
  const bare = await startListening(path.join(ROOT, 'dist', 'bench', 'bare-express.js'), env);
  const service = await startListening(path.join(ROOT, 'dist', 'src', 'infrastructure', 'server', 'main.js'), env, SERVICE_NODE_FLAGS);
  try {
    const token = DevTokenIssuer.loadOrCreate(dataDir).mint({ sub: crypto.randomUUID() });
    const created = await fetch(`${service.baseUrl}/api/v1/api-keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    const { raw_key: rawKey } = (await created.json()) as { raw_key: string };
    const mcp = (key: string) => ({
      url: `${service.baseUrl}/mcp`,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
      body: TOOLS_LIST,
      seconds: SECONDS,
      connections: CONNECTIONS,
    });
    const a = await measured(bare.child.pid!, () => load({ url: `${bare.baseUrl}/bare`, headers: { 'content-type': 'application/json' }, body: TOOLS_LIST, seconds: SECONDS, connections: CONNECTIONS }));
    const b = await measured(service.child.pid!, () => load(mcp(rawKey)));
    const c = await measured(service.child.pid!, () => load(mcp(`svc_${'0'.repeat(64)}`)));
    const d = await validateInProcess(url);
    const rss = { serviceMb: peakRssMb(service.child.pid!), benchProcessMb: peakRssMb(process.pid) };
    report({ a, b, c, d, rss });
  } finally {
    await service.stop();
    await bare.stop();
    await pg?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Adds the target's CPU time per answered request, which does not depend on how busy the load generator keeps it. */
async function measured(pid: number, run: () => Promise<LoadResult>): Promise<LoadResult & { cpuMicrosPerRequest: number }> {
  const before = cpuSeconds(pid);
  const result = await run();
  const requests = Object.values(result.statusCounts).reduce((sum, n) => sum + n, 0);
  return { ...result, cpuMicrosPerRequest: Math.round(((cpuSeconds(pid) - before) / requests) * 1e6) };
}

type Measured = LoadResult & { cpuMicrosPerRequest: number };

function report(figures: { a: Measured; b: Measured; c: Measured; d: Awaited<ReturnType<typeof validateInProcess>>; rss: { serviceMb: number; benchProcessMb: number } }) {
  const { a, b, c, d, rss } = figures;
  const ratio = Math.round((b.requestsPerSecond / a.requestsPerSecond) * 1000) / 1000;
  const targets = {
    'tools/list vs bare Express >= 0.7': ratio >= 0.7,
    'ValidateKey median < 20 us': d.medianMicros < 20,
    'service peak RSS < 200 MB': rss.serviceMb < 200,
  };
  const line = (name: string, r: Measured) =>
    `${name.padEnd(34)} ${r.requestsPerSecond.toFixed(0).padStart(8)} req/s  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  cpu ${r.cpuMicrosPerRequest} us/req  statuses ${JSON.stringify(r.statusCounts)}`;
  console.log(`\nkeygate benchmark (${SECONDS} s per run, ${CONNECTIONS} connections, autocannon in its own process)`);
  console.log(line('(a) bare Express JSON', a));
  console.log(line('(b) /mcp tools/list, valid key', b));
  console.log(line('(c) /mcp unknown key (401)', c));
  console.log(`${'(d) ValidateKey.execute, cached'.padEnd(34)} ${String(d.opsPerSecond).padStart(8)} ops/s  median ${d.medianMicros} us  p99 ${d.p99Micros} us`);
  console.log(`ratio (b)/(a): ${ratio}   peak RSS: service ${rss.serviceMb} MB, bench process ${rss.benchProcessMb} MB`);
  for (const [name, ok] of Object.entries(targets)) console.log(`${ok ? 'PASS' : 'MISS'}  ${name}`);
  const machine = { cpu: os.cpus()[0]?.model, cores: os.cpus().length, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}` };
  const out = path.join(ROOT, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  const result = { date: new Date().toISOString(), machine, seconds: SECONDS, connections: CONNECTIONS, bareExpress: a, toolsList: b, unknownKey: c, validateKeyInProcess: d, ratio, peakRss: rss, targets };
  writeFileSync(path.join(out, 'latest.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(`written to bench/results/latest.json`);
  if (Object.values(targets).some((ok) => !ok)) process.exitCode = 1;
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
