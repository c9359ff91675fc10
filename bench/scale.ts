import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DevTokenIssuer } from '../src/adapters/auth/dev-token-issuer';
import { SERVICE_NODE_FLAGS } from '../src/infrastructure/server/node-flags';
import { Client } from 'pg';
import { benchPlace } from './database';
import { failoverReach } from './failover-reach';
import { load } from './load';
import { machine } from './machine';
import { peakRssMb, Started, startListening } from './processes';
import { revocationReach } from './revocation-reach';
import { rotatingLoad } from './rotating-load';
import { measured } from './rounds';
import { seedKeys } from './seed-keys';

/**
 * npm run bench:scale: the hot path with a million keys in the table.
 * (f) uncached validation, (g) revocation reach across three replicas,
 * (h) RSS with 100,000 cached keys, (i) a quota across two replicas,
 * (l) revocation reach across three replicas right after a PostgreSQL failover.
 * Prints the figures and targets, writes them to
 * bench/results/scale.json, exits 1 when a target is missed.
 * BENCH_SCALE_PARTS selects parts (default f,g,h,i,l); the figures of the
 * parts not run are kept from the file as they were.
 */
const KEYS = Number(process.env.BENCH_SCALE_KEYS ?? 1_000_000);
const PARTS = new Set((process.env.BENCH_SCALE_PARTS ?? 'f,g,h,i,l').split(','));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
/**
 * (f)'s load: a p99 target only means something below saturation, where a
 * request waits for its own work rather than for the ones queued before it.
 * On two cores shared by autocannon, the service and PostgreSQL, every
 * connection past two adds a request queued behind another: in back-to-back
 * 10 s runs 2 connections gave 2,258 req/s with p99 4 ms, 3 gave 2,452 req/s
 * with p99 6 ms, 4 gave ~2,100-2,400 req/s with p99 7-8 ms, 8 gave
 * ~2,000-2,650 req/s with p99 12-16 ms. Two is the load at which the
 * throughput target is met with the most room and the tail is the service's.
 */
const F_CONNECTIONS = Number(process.env.BENCH_SCALE_CONNECTIONS ?? 2);
const F_ROTATION = 10_000;
const H_CACHED = 100_000;
const G_REVOKED = 300;
const I_QUOTA = 5_000;
const I_CALLS_PER_REPLICA = 4_000;
const L_REVOKED = 20;
const L_STALE_AFTER_MS = 5000;
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn';
const ROOT = path.resolve(__dirname, '..', '..');
const MAIN = path.join(ROOT, 'dist', 'src', 'infrastructure', 'server', 'main.js');
const NODE_FLAGS = process.env.BENCH_SERVICE_NODE_FLAGS?.split(' ').filter(Boolean) ?? SERVICE_NODE_FLAGS;
const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

/** Key indices: (f) rotates through the first 10,000, (h) caches the next 100,000, (g) revokes keys of 300 other users. */
const F_FROM = 0;
const H_FROM = F_ROTATION;
const G_INDICES = Array.from({ length: G_REVOKED }, (_, j) => KEYS - 10 * (j + 1));

async function main(): Promise<void> {
  if (KEYS < H_FROM + H_CACHED + 10 * G_REVOKED) throw new Error(`BENCH_SCALE_KEYS must be at least ${H_FROM + H_CACHED + 10 * G_REVOKED}`);
  const { url, dataDir, env, remove } = await benchPlace('keygate_bench_scale', LOG_LEVEL);
  const start = (extra: Record<string, string> = {}) => startListening(MAIN, { ...env, ...extra }, NODE_FLAGS);
  const results: Record<string, unknown> = {};
  const targets: Record<string, boolean> = {};
  const timings: Record<string, number> = {};
  try {
    // The first service migrates the empty database; the keys go in after. (l) runs on a cluster of its own.
    if ([...PARTS].some((part) => part !== 'l'))
      await timed(timings, 'seed', async () => {
        const migrating = await start({ KEY_CACHE_MAX_ENTRIES: '0' });
        await migrating.stop();
        results.seed = { keys: KEYS, seconds: round1(await seedKeys(url, KEYS)) };
        console.log(`seeded ${KEYS} keys with COPY in ${(results.seed as { seconds: number }).seconds} s`);
      });
    if (PARTS.has('f')) await timed(timings, 'f', () => partF(start, results, targets));
    if (PARTS.has('h')) await timed(timings, 'h', () => partH(start, results, targets));
    if (PARTS.has('g')) await timed(timings, 'g', () => partG(start, dataDir, results, targets));
    if (PARTS.has('i')) await timed(timings, 'i', () => partI(start, dataDir, url, results, targets));
    if (PARTS.has('l')) await timed(timings, 'l', () => partL(start, dataDir, results, targets));
  } finally {
    await remove();
  }
  for (const [name, ok] of Object.entries(targets)) console.log(`${ok ? 'PASS' : 'MISS'}  ${name}`);
  console.log(`seconds per part: ${JSON.stringify(timings)}`);
  const out = path.join(ROOT, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  const file = path.join(out, 'scale.json');
  // A run of some parts keeps the others' figures (and targets) from the last run that had them.
  const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  const result = {
    ...previous,
    date: new Date().toISOString(),
    machine: machine(),
    keys: KEYS,
    serviceNodeFlags: NODE_FLAGS.join(' '),
    logLevel: LOG_LEVEL,
    ...results,
    partsRun: [...PARTS],
    secondsPerPart: { ...(previous.secondsPerPart as Record<string, number> | undefined), ...timings },
    targets: { ...(previous.targets as Record<string, boolean> | undefined), ...targets },
  };
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  console.log('written to bench/results/scale.json');
  if (Object.values(targets).some((ok) => !ok)) process.exitCode = 1;
}

type Start = (extra?: Record<string, string>) => Promise<Started>;

/**
 * (f): no key cache, 10,000 distinct keys in rotation, each request a
 * PostgreSQL look-up by hash. The MCP-server-list cache keeps its own size
 * (SERVER_LIST_CACHE_MAX_ENTRIES): it caches no key. For comparison, not as
 * a target, the same load runs once more with that cache off too.
 */
async function partF(start: Start, results: Record<string, unknown>, targets: Record<string, boolean>): Promise<void> {
  const f = await uncached(start, { KEY_CACHE_MAX_ENTRIES: '0', SERVER_LIST_CACHE_MAX_ENTRIES: '10000' }, 'key cache off');
  results.uncachedValidation = f;
  const allAnswered = Object.keys(f.statusCounts).every((status) => status === '200');
  targets['(f) uncached validation p99 < 5 ms'] = f.p99Ms < 5 && allAnswered;
  targets['(f) uncached validation >= 1,500 req/s'] = f.requestsPerSecond >= 1500 && allAnswered;
  results.uncachedValidationServerListsUncachedToo = await uncached(
    start,
    { KEY_CACHE_MAX_ENTRIES: '0', SERVER_LIST_CACHE_MAX_ENTRIES: '0' },
    'both caches off, for comparison',
  );
}

async function uncached(start: Start, caches: Record<string, string>, label: string) {
  const service = await start(caches);
  try {
    const spec = (seconds: number) => ({
      url: `${service.baseUrl}/mcp`,
      body: TOOLS_LIST,
      from: F_FROM,
      count: F_ROTATION,
      connections: F_CONNECTIONS,
      seconds,
    });
    await rotatingLoad(spec(2));
    const f = await measured(service.child.pid!, () => rotatingLoad(spec(SECONDS)));
    console.log(
      `(f) tools/list, ${label}, ${F_ROTATION} keys in rotation, ${F_CONNECTIONS} connections: ${f.requestsPerSecond} req/s  p50 ${f.p50Ms} ms  p99 ${f.p99Ms} ms  cpu ${f.cpuMicrosPerRequest} us/req  statuses ${JSON.stringify(f.statusCounts)}`,
    );
    return { ...f, ...caches, connections: F_CONNECTIONS, keysInRotation: F_ROTATION, seconds: SECONDS };
  } finally {
    await service.stop();
  }
}

/** (h): 100,000 distinct keys used once (misses, cached), then once more (hits), then the service's peak RSS. */
async function partH(start: Start, results: Record<string, unknown>, targets: Record<string, boolean>): Promise<void> {
  const service = await start({ KEY_CACHE_MAX_ENTRIES: String(H_CACHED) });
  try {
    const pass = () =>
      rotatingLoad({ url: `${service.baseUrl}/mcp`, body: TOOLS_LIST, from: H_FROM, count: H_CACHED, connections: 16, amount: H_CACHED });
    const first = await pass();
    const before = await cacheLookups(service.baseUrl);
    const second = await pass();
    const after = await cacheLookups(service.baseUrl);
    const secondPass = { hits: after.hit - before.hit, misses: after.miss - before.miss };
    const rssMb = peakRssMb(service.child.pid!);
    results.cachedKeysRss = { cachedKeys: H_CACHED, firstPass: first, secondPass: { ...second, ...secondPass }, peakRssMb: rssMb };
    console.log(
      `(h) ${H_CACHED} keys cached: first pass ${first.requestsPerSecond} req/s ${JSON.stringify(first.statusCounts)}; second pass ${secondPass.hits} hits, ${secondPass.misses} misses; service peak RSS ${rssMb} MB`,
    );
    targets['(h) all 100,000 keys cached (second pass all hits)'] = secondPass.hits === H_CACHED && secondPass.misses === 0;
    targets['(h) service peak RSS with 100,000 cached keys < 400 MB'] = rssMb < 400;
  } finally {
    await service.stop();
  }
}

/** (g): three replicas on one database, 300 keys revoked through the first while the other two are polled. */
async function partG(start: Start, dataDir: string, results: Record<string, unknown>, targets: Record<string, boolean>): Promise<void> {
  const replicas: Started[] = [];
  try {
    for (let i = 0; i < 3; i += 1) replicas.push(await start());
    const issuer = DevTokenIssuer.loadOrCreate(dataDir);
    const reach = await revocationReach(
      replicas.map((r) => r.baseUrl),
      G_INDICES,
      (sub) => issuer.mint({ sub }),
    );
    results.revocationReach = reach;
    console.log(
      `(g) ${reach.revoked} keys revoked through replica 1, replicas 2 and 3 polled: until both refuse, from the DELETE's send p50 ${reach.fromSendMs.p50} ms p99 ${reach.fromSendMs.p99} ms max ${reach.fromSendMs.max} ms; from its 204 p50 ${reach.from204Ms.p50} ms p99 ${reach.from204Ms.p99} ms; the DELETE itself p50 ${reach.deleteMs.p50} ms; never reached: ${reach.notReached}`,
    );
    // From the 204: the revocation is committed and acknowledged; how long the DELETE takes is the REST write path's, not the reach's.
    targets['(g) revocation reach p99 < 25 ms (from the DELETE answered 204)'] = reach.notReached === 0 && reach.from204Ms.p99 < 25;
  } finally {
    for (const r of replicas) await r.stop();
  }
}

/**
 * (i): one key with a quota of 5,000 (and a rate limit that never trips),
 * loaded with tools/call on two replicas at once, 4,000 calls each: the
 * answered calls, summed over both, must be exactly 5,000, the rest 429
 * quota-exhausted, and the trail must hold 5,000 tool.called events.
 */
async function partI(
  start: Start,
  dataDir: string,
  url: string,
  results: Record<string, unknown>,
  targets: Record<string, boolean>,
): Promise<void> {
  const replicas: Started[] = [];
  try {
    for (let i = 0; i < 2; i += 1) replicas.push(await start());
    const token = DevTokenIssuer.loadOrCreate(dataDir).mint({ sub: crypto.randomUUID() });
    const created = await fetch(`${replicas[0].baseUrl}/api/v1/api-keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'bench (i)',
        rate_limit: { limit: 1_000_000, window_seconds: 1 },
        quota: { remaining: I_QUOTA, refill: null },
      }),
    });
    if (created.status !== 201) throw new Error(`(i) creating the limited key answered ${created.status}: ${await created.text()}`);
    const { id, raw_key: rawKey } = (await created.json()) as { id: string; raw_key: string };
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'projects', arguments: { action: 'list' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': rawKey };
    const loads = await Promise.all(
      replicas.map((r) => load({ url: `${r.baseUrl}/mcp`, headers, body, seconds: 0, connections: 16, amount: I_CALLS_PER_REPLICA })),
    );
    const admitted = loads.reduce((sum, l) => sum + (l.statusCounts['200'] ?? 0), 0);
    const refused = loads.reduce((sum, l) => sum + (l.statusCounts['429'] ?? 0), 0);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const events = await countRows(url, `SELECT count(*)::int AS n FROM audit_events WHERE action = 'tool.called' AND key_id = $1`, [id]);
    results.quotaAcrossReplicas = {
      quota: I_QUOTA,
      callsPerReplica: I_CALLS_PER_REPLICA,
      perReplica: loads.map((l) => l.statusCounts),
      admitted,
      refused,
      toolCalledEvents: events,
    };
    console.log(
      `(i) quota ${I_QUOTA} on two replicas, ${I_CALLS_PER_REPLICA} tools/call each: ${admitted} admitted, ${refused} refused with 429, ${events} tool.called events`,
    );
    targets[`(i) a quota of ${I_QUOTA} across two replicas admits exactly ${I_QUOTA}`] =
      admitted === I_QUOTA && events === I_QUOTA && admitted + refused === 2 * I_CALLS_PER_REPLICA;
  } finally {
    for (const r of replicas) await r.stop();
  }
}

/**
 * (l): revocation reach across three replicas measured across a failover
 * (bench/failover-reach.ts): the first key revoked once writes are back must
 * be refused by every replica within KEY_CACHE_STALE_AFTER_MS.
 */
async function partL(start: Start, dataDir: string, results: Record<string, unknown>, targets: Record<string, boolean>): Promise<void> {
  const issuer = DevTokenIssuer.loadOrCreate(dataDir);
  const sub = crypto.randomUUID();
  const reach = await failoverReach(start, () => issuer.mint({ sub }), L_REVOKED, L_STALE_AFTER_MS);
  results.failoverRevocationReach = reach;
  console.log(
    `(l) failover in ${reach.switchMs} ms, writes back ${reach.firstWriteAfterSwitchMs} ms after it; the first key revoked then refused by the three replicas after ${reach.firstRevocationReachMs.join('/')} ms; the next ${reach.laterRevocations.revoked} p50 ${reach.laterRevocations.p50Ms} ms p99 ${reach.laterRevocations.p99Ms} ms max ${reach.laterRevocations.maxMs} ms; never reached: ${reach.notReached}`,
  );
  targets[`(l) a key revoked right after a failover is refused on every replica within KEY_CACHE_STALE_AFTER_MS (${L_STALE_AFTER_MS} ms)`] =
    reach.notReached === 0 && reach.firstRevocationReachMs.length === 3 && Math.max(...reach.firstRevocationReachMs) <= L_STALE_AFTER_MS;
}

async function countRows(url: string, sql: string, params: unknown[]): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ n: number }>(sql, params)).rows[0].n;
  } finally {
    await client.end();
  }
}

/** keygate_key_cache_lookups_total by result, from /metrics. */
async function cacheLookups(baseUrl: string): Promise<{ hit: number; miss: number }> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const count = (result: string) =>
    Number(new RegExp(`keygate_key_cache_lookups_total\\{result="${result}"\\} (\\d+)`).exec(text)?.[1] ?? NaN);
  return { hit: count('hit'), miss: count('miss') };
}

async function timed(timings: Record<string, number>, name: string, run: () => Promise<void>): Promise<void> {
  const started = Date.now();
  try {
    await run();
  } finally {
    timings[name] = round1((Date.now() - started) / 1000);
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
