import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { Client } from 'pg';
import { DevTokenIssuer } from '../src/adapters/auth/dev-token-issuer';
import { SERVICE_NODE_FLAGS } from '../src/infrastructure/server/node-flags';
import { BenchKey, createBenchKey, keyLimitsMode } from './bench-key';
import { benchPlace } from './database';
import { load } from './load';
import { peakRssMb, Started, startListening } from './processes';
import { machine } from './machine';
import { measureRuleCost, RuleCost } from './rule-cost';
import { alternate, Measured, measured } from './rounds';
import { phaseLines, phaseProbe } from './phase-reader';
import { callsOneAtATime, ClientEra, measureUpstreamCall, UpstreamCallSetup } from './upstream-call';
import { validateInProcess } from './validate-in-process';
import { measureTracingOn, TRACING_ON, TracingOnRuns } from './tracing-on';

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
/** (b26): the same tools/list as a 2026-07-28 client sends it, stateless, with its envelope and standard headers. */
const MODERN = '2026-07-28';
const MODERN_TOOLS_LIST = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
});
const MODERN_HEADERS = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' };
/** (j)'s fixed rate, and the client eras it runs for (BENCH_UPSTREAM_ERAS, e.g. `2025`). */
const RATE = Number(process.env.BENCH_RATE ?? 200);
const UPSTREAM_ERAS = (process.env.BENCH_UPSTREAM_ERAS ?? '2025,2026').split(',').filter(Boolean) as ClientEra[];
/** BENCH_ONLY=j runs only (j) (with its PostgreSQL transaction count per call), for quick comparisons while working on it. */
const ONLY = process.env.BENCH_ONLY;
/**
 * With BENCH_ONLY=j, the root of another checkout whose build (`dist/`) runs
 * in (j)'s rounds in place of the floor, on the same database and key: a
 * change and the code before it measured side by side, the machine's drift
 * shared by both.
 */
const AGAINST = process.env.BENCH_AGAINST ? path.resolve(process.env.BENCH_AGAINST) : undefined;
/**
 * With BENCH_ONLY=j, BENCH_PHASES=on loads phase-probe.ts into the service
 * and the third side (the floor, or BENCH_AGAINST's build), and prints where
 * their calls of (j)'s fixed-rate rounds spent their time; each writes its
 * figures to this path and its name.
 */
const PHASES_FILES =
  ONLY === 'j' && process.env.BENCH_PHASES === 'on' ? path.join(os.tmpdir(), `keygate-bench-phases-${process.pid}`) : undefined;
/** Where the process `name` (keygate, or the third side's kind) writes its phases. */
const phasesFile = (name: string): string => `${PHASES_FILES}-${name}.json`;
/** `env` and `flags` with the phase probe loaded, writing to its own file, when BENCH_PHASES is on. */
function probed(name: string, env: NodeJS.ProcessEnv, flags: readonly string[] = []): [NodeJS.ProcessEnv, readonly string[]] {
  if (PHASES_FILES === undefined) return [env, flags];
  return [{ ...env, BENCH_PHASES_FILE: phasesFile(name) }, [...flags, '--require', path.join(ROOT, 'dist', 'bench', 'phase-probe.js')]];
}
/** A built-in tool call: one PostgreSQL read by primary key, and one tool.called event queued for the batch writer. */
const toolsCall = (args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'projects', arguments: args } });

const MAIN_IN_ROOT = path.join('dist', 'src', 'infrastructure', 'server', 'main.js');
const MAIN = path.join(ROOT, MAIN_IN_ROOT);

async function main(): Promise<void> {
  const { url, dataDir, env, remove } = await benchPlace('keygate_bench', LOG_LEVEL);
  const bare = await startListening(path.join(ROOT, 'dist', 'bench', 'bare-express.js'), env);
  const upstream = await startListening(path.join(ROOT, 'dist', 'bench', 'upstream-server.js'), env);
  const floor = await startListening(
    path.join(ROOT, 'dist', 'bench', 'bare-proxy.js'),
    ...probed('floor', { ...env, UPSTREAM_URL: `${upstream.baseUrl}/mcp` }),
  );
  // (j)'s upstream listens on loopback, which the service refuses to contact unless allowed.
  const serviceEnv = { ...env, MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8' };
  const service = await startListening(MAIN, ...probed('keygate', serviceEnv, NODE_FLAGS));
  try {
    const token = DevTokenIssuer.loadOrCreate(dataDir).mint({ sub: crypto.randomUUID() });
    const key = await createBenchKey(service.baseUrl, token, 'bench', keyLimitsMode());
    const rawKey = key.rawKey;
    const mcp = (key: string, seconds: number, body = TOOLS_LIST, extraHeaders: Record<string, string> = {}) => ({
      url: `${service.baseUrl}/mcp`,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key, ...extraHeaders },
      body,
      seconds,
      connections: CONNECTIONS,
    });
    if (ONLY === 'j') {
      const alongside: Alongside = AGAINST
        ? {
            kind: 'build',
            started: await startListening(path.join(AGAINST, MAIN_IN_ROOT), ...probed('build', serviceEnv, NODE_FLAGS)),
            root: AGAINST,
          }
        : { kind: 'floor', started: floor };
      return await onlyUpstreamCalls(service, upstream, alongside, url, rawKey)
        .finally(() => (alongside.kind === 'build' ? alongside.started.stop() : undefined))
        .catch((error) => {
          console.log(
            `service ${service.child.pid} output:\n${service.outputTail()}\nupstream ${upstream.child.pid} output:\n${upstream.outputTail()}`,
          );
          throw error;
        });
    }
    const bareLoad = (route: string, body: string, seconds: number) => ({
      url: `${bare.baseUrl}${route}`,
      headers: { 'content-type': 'application/json' },
      body,
      seconds,
      connections: CONNECTIONS,
    });
    /** (b) and (e) as below, against the traced service (BENCH_TRACING=on), with the same ceilings. */
    const tracingRuns = (getCall: string): TracingOnRuns => {
      const at = (baseUrl: string, seconds: number, body?: string) => ({ ...mcp(rawKey, seconds, body), url: `${baseUrl}/mcp` });
      return {
        bare: (seconds) => load(bareLoad('/bare', TOOLS_LIST, seconds)),
        barePid: bare.child.pid!,
        bareRow: (seconds) => load(bareLoad('/row', getCall, seconds)),
        toolsList: (baseUrl) => (seconds) => load(at(baseUrl, seconds)),
        toolsCall: (baseUrl) => (seconds) => load(at(baseUrl, seconds, getCall)),
        warmUp: async (baseUrl) => {
          await load(at(baseUrl, WARM_UP_SECONDS));
          await load(at(baseUrl, WARM_UP_SECONDS, getCall));
        },
      };
    };
    if (ONLY === 'tracing') {
      const getCall = toolsCall({ action: 'get', id: await createProject(service.baseUrl, rawKey) });
      await load(bareLoad('/bare', TOOLS_LIST, WARM_UP_SECONDS));
      await load(bareLoad('/row', getCall, WARM_UP_SECONDS));
      const traced = await measureTracingOn(MAIN, serviceEnv, NODE_FLAGS, tracingRuns(getCall), SECONDS, ROUNDS);
      return printTracingOn(traced, line);
    }
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
    const audited = { calls: ae.figure.statusCounts['200'] ?? 0, events: (await toolCallEvents(url)) - eventsBefore };
    const ruleCost = await measureRuleCost({
      pid: service.child.pid!,
      baseUrl: service.baseUrl,
      adminToken: DevTokenIssuer.loadOrCreate(dataDir).mint({ sub: crypto.randomUUID(), admin: true }),
      tool: 'projects',
      seconds: SECONDS,
      rounds: ROUNDS,
      run: (seconds) => load(mcp(rawKey, seconds, getCall)),
    });
    await load(bareLoad('/bare-modern', MODERN_TOOLS_LIST, WARM_UP_SECONDS));
    await load(mcp(rawKey, WARM_UP_SECONDS, MODERN_TOOLS_LIST, MODERN_HEADERS));
    const abModern = await alternate(
      { pid: bare.child.pid!, run: (seconds) => load(bareLoad('/bare-modern', MODERN_TOOLS_LIST, seconds)) },
      { pid: service.child.pid!, run: (seconds) => load(mcp(rawKey, seconds, MODERN_TOOLS_LIST, MODERN_HEADERS)) },
      SECONDS,
      ROUNDS,
    );
    // A second service, so that the first one's figures and RSS stay those of tracing off.
    const traced = TRACING_ON ? await measureTracingOn(MAIN, serviceEnv, NODE_FLAGS, tracingRuns(getCall), SECONDS, ROUNDS) : undefined;
    // The RSS target is the one the figures above have always been held to; (j)'s sessions and upstream contacts come on top and are printed apart.
    const serviceMb = peakRssMb(service.child.pid!);
    await createUpstreamRecord(service.baseUrl, rawKey, `${upstream.baseUrl.replace('localhost', '127.0.0.1')}/mcp`);
    const j: UpstreamCall[] = [];
    for (const era of UPSTREAM_ERAS) {
      j.push(await measureUpstreamCall(upstreamCallSetup(era, service, upstream, { kind: 'floor', started: floor }, rawKey)));
    }
    const rounds = [...ab.figureRounds, ...ae.figureRounds, ...abModern.figureRounds, ...j.flatMap((call) => call.throughput.figureRounds)];
    if (rounds.some((r) => r.requests === 0 || r.errors + r.timeouts > 0)) {
      console.log(
        `a round of the service answered nothing or had connection errors; its last output:\n${service.outputTail() || '(none)'}`,
      );
    }
    const d = await validateInProcess(url);
    const rss = { serviceMb, serviceAfterUpstreamCallsMb: peakRssMb(service.child.pid!), benchProcessMb: peakRssMb(process.pid) };
    report({
      a: ab.ceiling,
      b: ab.figure,
      c,
      d,
      aPrime: ae.ceiling,
      e: ae.figure,
      aModern: abModern.ceiling,
      bModern: abModern.figure,
      j,
      audited,
      ruleCost,
      rss,
      ratios: { b: ab, e: ae, bModern: abModern },
      key,
      traced,
    });
  } finally {
    await service.stop();
    await floor.stop();
    await upstream.stop();
    await bare.stop();
    await remove();
  }
}

type Ratio = { ratio: number; roundRatios: number[] };
type TracedFigures = Awaited<ReturnType<typeof measureTracingOn>>;
type UpstreamCall = Awaited<ReturnType<typeof measureUpstreamCall>>;

function report(figures: {
  a: Measured;
  b: Measured;
  c: Measured;
  d: Awaited<ReturnType<typeof validateInProcess>>;
  aPrime: Measured;
  e: Measured;
  aModern: Measured;
  bModern: Measured;
  j: UpstreamCall[];
  audited: { calls: number; events: number };
  ruleCost: RuleCost;
  rss: { serviceMb: number; serviceAfterUpstreamCallsMb: number; benchProcessMb: number };
  ratios: { b: Ratio; e: Ratio; bModern: Ratio };
  key: BenchKey;
  traced?: TracedFigures;
}) {
  const { a, b, c, d, aPrime, e, aModern, bModern, j, audited, ruleCost, rss, ratios, key, traced } = figures;
  const targets: Record<string, boolean> = {
    'tools/list vs bare Express >= 0.7': ratios.b.ratio >= 0.7,
    'tools/call get vs bare Express + PostgreSQL row >= 0.7': ratios.e.ratio >= 0.7,
    'ValidateKey median < 20 us': d.medianMicros < 20,
    'service peak RSS < 200 MB': rss.serviceMb < 200,
    '2026-07-28 tools/list vs bare Express >= 0.9': ratios.bModern.ratio >= 0.9,
    '(k) tools/call get with a non-matching rule vs without >= 0.9': ruleCost.ratio >= 0.9,
  };
  for (const call of j) {
    targets[`(j) ${call.era} client: added p50 <= 1 ms at ${call.rate} req/s`] = call.latency.added.p50Ms <= 1;
    targets[`(j) ${call.era} client: added p99 <= 3 ms at ${call.rate} req/s`] = call.latency.added.p99Ms <= 3;
  }
  console.log(
    `\nkeygate benchmark (${SECONDS} s per figure, (a)/(b) and (a')/(e) alternating in ${ROUNDS} rounds; ${CONNECTIONS} connections; autocannon in its own process)`,
  );
  console.log(line('(a) bare Express JSON', a));
  console.log(line('(b) /mcp tools/list, valid key', b));
  console.log(line('(c) /mcp unknown key (401)', c));
  console.log(
    `${'(d) ValidateKey.execute, cached'.padEnd(38)} ${String(d.opsPerSecond).padStart(8)} ops/s  median ${d.medianMicros} us  p99 ${d.p99Micros} us`,
  );
  console.log(line("(a') bare Express, one PostgreSQL row", aPrime));
  console.log(line('(e) /mcp tools/call get, audited', e));
  console.log(`    tool.called events in audit_events 2 s later: ${audited.events} of ${audited.calls} answered calls`);
  console.log(`    (e)'s key: ${KEY_LIMITS_NOTE[key.limits]}`);
  console.log(`ratio (b)/(a): ${ratios.b.ratio} (rounds: ${ratios.b.roundRatios.join(', ')})`);
  console.log(`ratio (e)/(a'): ${ratios.e.ratio} (rounds: ${ratios.e.roundRatios.join(', ')})`);
  console.log(line('(e) again, no rule on the tool', ruleCost.without));
  console.log(line('(k) (e) with one non-matching rule', ruleCost.with));
  console.log(`ratio (k)/(e): ${ruleCost.ratio} (rounds: ${ruleCost.roundRatios.join(', ')})  target >= 0.9`);
  console.log(line('(a) bare Express JSON, 2026 bytes', aModern));
  console.log(line('(b26) /mcp tools/list, 2026-07-28', bModern));
  console.log(`ratio (b26)/(a): ${ratios.bModern.ratio} (rounds: ${ratios.bModern.roundRatios.join(', ')})  target >= 0.9`);
  if (traced) printTracingOn(traced, line);
  for (const call of j) printUpstreamCall(call, undefined, line);
  console.log(
    `peak RSS: service ${rss.serviceMb} MB before (j), ${rss.serviceAfterUpstreamCallsMb} MB after; bench process ${rss.benchProcessMb} MB`,
  );
  for (const [name, ok] of Object.entries(targets)) console.log(`${ok ? 'PASS' : 'MISS'}  ${name}`);
  const out = path.join(ROOT, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  const serviceNodeFlags = NODE_FLAGS.join(' ');
  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    seconds: SECONDS,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    serviceNodeFlags,
    logLevel: LOG_LEVEL,
    bareExpress: a,
    toolsList: b,
    unknownKey: c,
    validateKeyInProcess: d,
    bareExpressRow: aPrime,
    toolsCallAudited: e,
    toolCallEvents: audited,
    toolsCallKeyLimits: key.limits,
    ratio: ratios.b.ratio,
    roundRatios: ratios.b.roundRatios,
    toolsCallRatio: ratios.e.ratio,
    toolsCallRoundRatios: ratios.e.roundRatios,
    toolsCallWithoutRule: ruleCost.without,
    toolsCallWithRule: ruleCost.with,
    ruleRatio: ruleCost.ratio,
    ruleRoundRatios: ruleCost.roundRatios,
    bareExpressModern: aModern,
    toolsListModern: bModern,
    modernRatio: ratios.bModern.ratio,
    modernRoundRatios: ratios.bModern.roundRatios,
    upstreamCall: j.map(({ era, rate, latency, throughput }) => ({
      era,
      rate,
      latency,
      direct: throughput.ceiling,
      gateway: throughput.figure,
      ratio: throughput.ratio,
      roundRatios: throughput.roundRatios,
    })),
    ...(traced && { b_tracing: tracedResult(traced.b), e_tracing: tracedResult(traced.e), tracingExports: traced.received }),
    peakRss: rss,
    targets,
  };
  writeFileSync(path.join(out, 'latest.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(`written to bench/results/latest.json`);
  if (Object.values(targets).some((ok) => !ok)) process.exitCode = 1;
}

const line = (name: string, r: Measured) =>
  `${name.padEnd(38)} ${r.requestsPerSecond.toFixed(0).padStart(8)} req/s  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  cpu ${r.cpuMicrosPerRequest} us/req  statuses ${JSON.stringify(r.statusCounts)}${r.errors + r.timeouts > 0 ? `  errors ${r.errors} timeouts ${r.timeouts}` : ''}`;

/** (b) and (e) with tracing on at full sampling: no target, printed beside the figures with tracing off. */
function printTracingOn({ b, e, received }: TracedFigures, line: (name: string, r: Measured) => string) {
  console.log(`tracing on (OTEL_TRACES_SAMPLER=always_on, a second service exporting over OTLP/HTTP to a discarding receiver):`);
  console.log(line('(a) bare Express JSON', b.ceiling));
  console.log(line('(b) /mcp tools/list, tracing on', b.figure));
  console.log(`ratio (b)/(a), tracing on: ${b.ratio} (rounds: ${b.roundRatios.join(', ')})`);
  console.log(line("(a') bare Express, one PostgreSQL row", e.ceiling));
  console.log(line('(e) /mcp tools/call get, tracing on', e.figure));
  console.log(`ratio (e)/(a'), tracing on: ${e.ratio} (rounds: ${e.roundRatios.join(', ')})`);
  console.log(`    spans exported: ${received.exports} OTLP requests, ${received.bytes} bytes`);
}

function tracedResult({ ceiling, figure, ratio, roundRatios }: TracedFigures['b']) {
  return { ceiling, figure, ratio, roundRatios };
}

const ERA_NOTE: Record<ClientEra, string> = {
  '2025': 'a 2025-11-25 client in a session',
  '2026': 'a 2026-07-28 client, stateless',
};

function printUpstreamCall(
  { era, rate, latency, throughput, phases }: UpstreamCall,
  /** The other build's root when one ran in the floor's place (BENCH_AGAINST). */
  against: string | undefined,
  line: (name: string, r: Measured) => string,
) {
  const at = (name: string, f: UpstreamCall['latency']['reference']) =>
    `${name.padEnd(38)} ${String(f.requests).padStart(8)} calls  p50 ${f.p50Ms} ms  p99 ${f.p99Ms} ms  max ${f.maxMs} ms  statuses ${JSON.stringify(f.statusCounts)}${f.errors + f.unexpected > 0 ? `  errors ${f.errors} unexpected ${f.unexpected}` : ''}`;
  console.log(`(j) upstream tools/call, ${ERA_NOTE[era]}, at a fixed ${rate} req/s (open loop):`);
  console.log(at('    direct to the upstream', latency.reference));
  console.log(at(`    through /mcp/servers/${UPSTREAM_NAME}`, latency.figure));
  console.log(`    added: p50 ${latency.added.p50Ms} ms (target <= 1 ms), p99 ${latency.added.p99Ms} ms (target <= 3 ms)`);
  if (latency.floor && against !== undefined) {
    console.log(at(`    through the build in ${against}`, latency.floor.figure));
    console.log(
      `    that build added: p50 ${latency.floor.added.p50Ms} ms, p99 ${latency.floor.added.p99Ms} ms; this build less that one: p50 ${latency.floor.beyond.p50Ms} ms, p99 ${latency.floor.beyond.p99Ms} ms (two runs of one build have differed by up to 0.25 ms at p50 here: repeat before trusting less)`,
    );
  } else if (latency.floor) {
    console.log(at('    floor: the same hops, bare-proxy.ts', latency.floor.figure));
    console.log(
      `    the floor added: p50 ${latency.floor.added.p50Ms} ms, p99 ${latency.floor.added.p99Ms} ms (this machine's cost of the hops, no target); through keygate beyond it: p50 ${latency.floor.beyond.p50Ms} ms, p99 ${latency.floor.beyond.p99Ms} ms`,
    );
  }
  const alongsideName = against === undefined ? 'the floor' : `the build in ${against}`;
  for (const phaseLine of phases ? phaseLines(phases.keygate, { name: alongsideName, summary: phases.alongside }) : [])
    console.log(phaseLine);
  console.log(`(j) the same, saturated (${CONNECTIONS} connections):`);
  console.log(line('    direct to the upstream', throughput.ceiling));
  console.log(line(`    through /mcp/servers/${UPSTREAM_NAME}`, throughput.figure));
  console.log(`    ratio through keygate / direct: ${throughput.ratio} (rounds: ${throughput.roundRatios.join(', ')})`);
}

const KEY_LIMITS_NOTE: Record<BenchKey['limits'], string> = {
  on: 'rate limit and quota set (never tripped)',
  off: 'no limits (BENCH_KEY_LIMITS=off)',
  refused: 'NO limits: this service refused rate_limit/quota at create (BENCH_KEY_LIMITS=auto on a build without them)',
};

const UPSTREAM_NAME = 'bench';

/** (j)'s third side: the floor (bare-proxy.ts), or another build of keygate (BENCH_AGAINST), with its root. */
type Alongside = { kind: 'floor'; started: Started } | { kind: 'build'; started: Started; root: string };

/** (j)'s setup for one client era: the upstream through keygate's /mcp/servers/<name>, directly, and through the third side, at the run's rate and rounds. */
function upstreamCallSetup(era: ClientEra, service: Started, upstream: Started, alongside: Alongside, rawKey: string): UpstreamCallSetup {
  return {
    era,
    gatewayUrl: `${service.baseUrl}/mcp/servers/${UPSTREAM_NAME}`,
    rawKey,
    directUrl: `${upstream.baseUrl}/mcp`,
    alongside:
      alongside.kind === 'floor'
        ? { url: `${alongside.started.baseUrl}/mcp`, auth: {} }
        : { url: `${alongside.started.baseUrl}/mcp/servers/${UPSTREAM_NAME}`, auth: { 'x-api-key': rawKey } },
    servicePid: service.child.pid!,
    upstreamPid: upstream.child.pid!,
    rate: RATE,
    seconds: SECONDS,
    rounds: ROUNDS,
    warmUpSeconds: WARM_UP_SECONDS,
    connections: CONNECTIONS,
  };
}

/** (j) alone: its figures, and how many PostgreSQL transactions and row changes each call through keygate cost. */
async function onlyUpstreamCalls(service: Started, upstream: Started, alongside: Alongside, url: string, rawKey: string): Promise<void> {
  await createUpstreamRecord(service.baseUrl, rawKey, `${upstream.baseUrl.replace('localhost', '127.0.0.1')}/mcp`);
  for (const era of UPSTREAM_ERAS) {
    const setup = {
      ...upstreamCallSetup(era, service, upstream, alongside, rawKey),
      ...(PHASES_FILES && {
        phases: {
          keygate: phaseProbe(service.child.pid!, phasesFile('keygate')),
          alongside: phaseProbe(alongside.started.child.pid!, phasesFile(alongside.kind)),
        },
      }),
    };
    const calls = 200;
    const before = await databaseActivity(url);
    await callsOneAtATime(setup, calls);
    const after = await databaseActivity(url);
    const per = (n: number) => (n / calls).toFixed(2);
    console.log(
      `(j) ${era}: PostgreSQL per call through keygate, ${calls} calls one at a time: ${per(after.commits - before.commits)} commits`,
    );
    for (const [table, n] of Object.entries(after.tables)) {
      const b = before.tables[table] ?? { reads: 0, ins: 0, upd: 0, del: 0 };
      if (n.reads + n.ins + n.upd + n.del === b.reads + b.ins + b.upd + b.del) continue;
      console.log(
        `      ${table.padEnd(24)} reads ${per(n.reads - b.reads)}  inserts ${per(n.ins - b.ins)}  updates ${per(n.upd - b.upd)}  deletes ${per(n.del - b.del)}`,
      );
    }
    const call = await measureUpstreamCall(setup);
    printUpstreamCall(
      call,
      alongside.kind === 'build' ? alongside.root : undefined,
      (name, r) =>
        `${name.padEnd(38)} ${r.requestsPerSecond.toFixed(0).padStart(8)} req/s  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  cpu ${r.cpuMicrosPerRequest} us/req`,
    );
  }
}

/** Committed transactions in the database, and per table its scans and row changes, as PostgreSQL's statistics count them. */
async function databaseActivity(url: string) {
  await new Promise((resolve) => setTimeout(resolve, 11_000)); // an idle backend flushes its statistics within 10 s
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const [{ commits }] = (
      await client.query<{ commits: string }>(
        `SELECT xact_commit::bigint AS commits FROM pg_stat_database WHERE datname = current_database()`,
      )
    ).rows;
    const rows = (
      await client.query<{ relname: string; reads: string; ins: string; upd: string; del: string }>(
        `SELECT relname, coalesce(seq_scan,0) + coalesce(idx_scan,0) AS reads, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_del AS del FROM pg_stat_user_tables`,
      )
    ).rows;
    const tables: Record<string, { reads: number; ins: number; upd: number; del: number }> = {};
    for (const r of rows) tables[r.relname] = { reads: Number(r.reads), ins: Number(r.ins), upd: Number(r.upd), del: Number(r.del) };
    return { commits: Number(commits), tables };
  } finally {
    await client.end();
  }
}

/** (j)'s upstream as the key owner's server record, reached at /mcp/servers/bench. */
async function createUpstreamRecord(baseUrl: string, rawKey: string, upstreamUrl: string): Promise<void> {
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': rawKey },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'mcp_servers', arguments: { action: 'create', data: { name: UPSTREAM_NAME, url: upstreamUrl } } },
    }),
  });
  const text = await res.text();
  if (res.status !== 200 || text.includes('"isError":true'))
    throw new Error(`creating the upstream record answered ${res.status}: ${text.slice(0, 500)}`);
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

/** How many tool.called get events the batch writer has stored, read once its queue has had time to drain. */
async function toolCallEvents(url: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const [{ n }] = (
      await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM audit_events WHERE action = 'tool.called' AND details->>'action' = 'get'`,
      )
    ).rows;
    return n;
  } finally {
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
