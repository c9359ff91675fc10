import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { DevTokenIssuer } from '../src/adapters/auth/dev-token-issuer';
import { SERVICE_NODE_FLAGS } from '../src/infrastructure/server/node-flags';
import { BenchKey, createBenchKey, keyLimitsMode } from './bench-key';
import { benchPlace } from './database';
import { load } from './load';
import { peakRssMb, startListening } from './processes';
import { machine } from './machine';
import { alternate, Measured, measured } from './rounds';
import { validateInProcess } from './validate-in-process';

/**
 * npm run bench: the service on a real PostgreSQL, loaded by autocannon from a
 * second process. Prints the figures and the four targets, and writes them
 * to bench/results/latest.json. The runs at a million keys are
 * `npm run bench:scale` (scale.ts).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
/** (a) and (b), and (a′) and (e), run in alternating rounds that add up to SECONDS each (rounds.ts says why). */
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
  const { url, dataDir, env, remove } = await benchPlace('keygate_bench', LOG_LEVEL);
  const bare = await startListening(path.join(ROOT, 'dist', 'bench', 'bare-express.js'), env);
  const service = await startListening(path.join(ROOT, 'dist', 'src', 'infrastructure', 'server', 'main.js'), env, NODE_FLAGS);
  try {
    const token = DevTokenIssuer.loadOrCreate(dataDir).mint({ sub: crypto.randomUUID() });
    const key = await createBenchKey(service.baseUrl, token, 'bench', keyLimitsMode());
    const rawKey = key.rawKey;
    const mcp = (key: string, seconds: number, body = TOOLS_LIST) => ({
      url: `${service.baseUrl}/mcp`,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
      body,
      seconds,
      connections: CONNECTIONS,
    });
    const bareLoad = (route: string, body: string, seconds: number) => ({ url: `${bare.baseUrl}${route}`, headers: { 'content-type': 'application/json' }, body, seconds, connections: CONNECTIONS });
    await load(bareLoad('/bare', TOOLS_LIST, WARM_UP_SECONDS));
    await load(mcp(rawKey, WARM_UP_SECONDS));
    const ab = await alternate(
      { pid: bare.child.pid!, run: (seconds) => load(bareLoad('/bare', TOOLS_LIST, seconds)) },
      { pid: service.child.pid!, run: (seconds) => load(mcp(rawKey, seconds)) },
      SECONDS,
      ROUNDS,
    );
    const c = await measured(service.child.pid!, () => load(mcp(`svc_${'0'.repeat(64)}`, SECONDS)));
    const projectId = await createProject(service.baseUrl, rawKey);
    const getCall = toolsCall({ action: 'get', id: projectId });
    await load(bareLoad('/row', getCall, WARM_UP_SECONDS));
    await load(mcp(rawKey, WARM_UP_SECONDS, getCall));
    const eventsBefore = await toolCallEvents(url);
    const ae = await alternate(
      { pid: bare.child.pid!, run: (seconds) => load(bareLoad('/row', getCall, seconds)) },
      { pid: service.child.pid!, run: (seconds) => load(mcp(rawKey, seconds, getCall)) },
      SECONDS,
      ROUNDS,
    );
    if ([...ab.figureRounds, ...ae.figureRounds].some((r) => r.requests === 0 || r.errors + r.timeouts > 0)) {
      console.log(`a round of the service answered nothing or had connection errors; its last output:\n${service.outputTail() || '(none)'}`);
    }
    const audited = { calls: ae.figure.statusCounts['200'] ?? 0, events: (await toolCallEvents(url)) - eventsBefore };
    const d = await validateInProcess(url);
    const rss = { serviceMb: peakRssMb(service.child.pid!), benchProcessMb: peakRssMb(process.pid) };
    report({ a: ab.ceiling, b: ab.figure, c, d, aPrime: ae.ceiling, e: ae.figure, audited, rss, ratios: { b: ab, e: ae }, key });
  } finally {
    await service.stop();
    await bare.stop();
    await remove();
  }
}

type Ratio = { ratio: number; roundRatios: number[] };

function report(figures: {
  a: Measured;
  b: Measured;
  c: Measured;
  d: Awaited<ReturnType<typeof validateInProcess>>;
  aPrime: Measured;
  e: Measured;
  audited: { calls: number; events: number };
  rss: { serviceMb: number; benchProcessMb: number };
  ratios: { b: Ratio; e: Ratio };
  key: BenchKey;
}) {
  const { a, b, c, d, aPrime, e, audited, rss, ratios, key } = figures;
  const targets = {
    'tools/list vs bare Express >= 0.7': ratios.b.ratio >= 0.7,
    'tools/call get vs bare Express + PostgreSQL row >= 0.7': ratios.e.ratio >= 0.7,
    'ValidateKey median < 20 us': d.medianMicros < 20,
    'service peak RSS < 200 MB': rss.serviceMb < 200,
  };
  const line = (name: string, r: Measured) =>
    `${name.padEnd(38)} ${r.requestsPerSecond.toFixed(0).padStart(8)} req/s  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  cpu ${r.cpuMicrosPerRequest} us/req  statuses ${JSON.stringify(r.statusCounts)}${r.errors + r.timeouts > 0 ? `  errors ${r.errors} timeouts ${r.timeouts}` : ''}`;
  console.log(`\nkeygate benchmark (${SECONDS} s per figure, (a)/(b) and (a')/(e) alternating in ${ROUNDS} rounds; ${CONNECTIONS} connections; autocannon in its own process)`);
  console.log(line('(a) bare Express JSON', a));
  console.log(line('(b) /mcp tools/list, valid key', b));
  console.log(line('(c) /mcp unknown key (401)', c));
  console.log(`${'(d) ValidateKey.execute, cached'.padEnd(38)} ${String(d.opsPerSecond).padStart(8)} ops/s  median ${d.medianMicros} us  p99 ${d.p99Micros} us`);
  console.log(line("(a') bare Express, one PostgreSQL row", aPrime));
  console.log(line('(e) /mcp tools/call get, audited', e));
  console.log(`    tool.called events in audit_events 2 s later: ${audited.events} of ${audited.calls} answered calls`);
  console.log(`    (e)'s key: ${KEY_LIMITS_NOTE[key.limits]}`);
  console.log(`ratio (b)/(a): ${ratios.b.ratio} (rounds: ${ratios.b.roundRatios.join(', ')})`);
  console.log(`ratio (e)/(a'): ${ratios.e.ratio} (rounds: ${ratios.e.roundRatios.join(', ')})`);
  console.log(`peak RSS: service ${rss.serviceMb} MB, bench process ${rss.benchProcessMb} MB`);
  for (const [name, ok] of Object.entries(targets)) console.log(`${ok ? 'PASS' : 'MISS'}  ${name}`);
  const out = path.join(ROOT, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  const serviceNodeFlags = NODE_FLAGS.join(' ');
  const result = {
    date: new Date().toISOString(), machine: machine(), seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, serviceNodeFlags, logLevel: LOG_LEVEL,
    bareExpress: a, toolsList: b, unknownKey: c, validateKeyInProcess: d, bareExpressRow: aPrime, toolsCallAudited: e, toolCallEvents: audited, toolsCallKeyLimits: key.limits,
    ratio: ratios.b.ratio, roundRatios: ratios.b.roundRatios, toolsCallRatio: ratios.e.ratio, toolsCallRoundRatios: ratios.e.roundRatios, peakRss: rss, targets,
  };
  writeFileSync(path.join(out, 'latest.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(`written to bench/results/latest.json`);
  if (Object.values(targets).some((ok) => !ok)) process.exitCode = 1;
}

const KEY_LIMITS_NOTE: Record<BenchKey['limits'], string> = {
  on: 'rate limit and quota set (never tripped)',
  off: 'no limits (BENCH_KEY_LIMITS=off)',
  refused: 'NO limits: this service refused rate_limit/quota at create (BENCH_KEY_LIMITS=auto on a build without them)',
};

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

/** How many tool.called get events the batch writer has stored, read once its queue has had time to drain. */
async function toolCallEvents(url: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const [{ n }] = (await client.query(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'tool.called' AND details->>'action' = 'get'`)).rows;
    return n;
  } finally {
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
