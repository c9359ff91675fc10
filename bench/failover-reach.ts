import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { HAPROXY_CANDIDATES, startPostgresProxy } from '../tests/support/haproxy';
import { debianPostgresBin, query, startReplicatedPostgres } from '../tests/support/replicated-postgres';
import { Started } from './processes';
import { mcpStatus } from './revocation-reach';

export interface FailoverReachResult {
  replicas: number;
  staleAfterMs: number;
  /** Primary killed to HAProxy pointing at the promoted standby (a 1 s pause for detection included). */
  switchMs: number;
  /** From the switch until the first revocation was answered 204 (writes back). */
  firstWriteAfterSwitchMs: number;
  /** The key revoked right after the switch: per replica, from its 204 until that replica answered 401. */
  firstRevocationReachMs: number[];
  /** The keys revoked one by one after it: until every replica refused, from each 204. */
  laterRevocations: { revoked: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** Keys a replica still accepted GIVE_UP_MS after their 204. */
  notReached: number;
}

const GIVE_UP_MS = 30_000;

/**
 * (l): three replicas on a PostgreSQL primary with a synchronous standby
 * behind HAProxy. Keys are cached on every replica, the primary is killed,
 * the standby promoted and HAProxy moved; right after, keys are revoked one
 * by one through the first replica while every replica is polled with each
 * until it refuses it. The first one may meet a replica whose change listener
 * is not back yet: KEY_CACHE_STALE_AFTER_MS bounds its reach.
 */
export async function failoverReach(
  start: (env: Record<string, string>) => Promise<Started>,
  token: () => string,
  keys: number,
  staleAfterMs: number,
): Promise<FailoverReachResult> {
  const bin = debianPostgresBin();
  const haproxy = HAPROXY_CANDIDATES.find((candidate) => candidate !== undefined && existsSync(candidate));
  if (!bin || !haproxy) throw new Error('(l) needs Debian PostgreSQL server binaries and haproxy (apt-get install -y postgresql haproxy)');
  const pg = await startReplicatedPostgres(bin);
  const replicas: Started[] = [];
  const proxy = await startPostgresProxy(haproxy, [pg.primaryPort, pg.standbyPort], pg.primaryPort);
  try {
    await query(pg.urlOf(pg.primaryPort), 'CREATE DATABASE keygate_bench_failover');
    const env = {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/keygate_bench_failover`,
      KEY_CACHE_STALE_AFTER_MS: String(staleAfterMs),
    };
    for (let i = 0; i < 3; i += 1) replicas.push(await start(env));
    const urls = replicas.map((r) => r.baseUrl);
    const created: { id: string; raw_key: string }[] = [];
    for (let i = 0; i < keys; i += 1) {
      const res = await rest(urls[0], 'POST', '', token(), { name: `bench (l) ${i}` });
      if (res.status !== 201) throw new Error(`(l) creating a key answered ${res.status}`);
      created.push((await res.json()) as { id: string; raw_key: string });
    }
    for (const key of created)
      for (const url of urls) if ((await mcpStatus(url, key.raw_key)) !== 200) throw new Error('(l) a key was refused before the switch');

    const switchStarted = performance.now();
    await pg.killPrimary();
    await new Promise((r) => setTimeout(r, 1000));
    await pg.promoteStandby();
    await proxy.pointAt(pg.standbyPort);
    const switched = performance.now();

    let notReached = 0;
    let firstWriteAfterSwitchMs = 0;
    let firstRevocationReachMs: number[] = [];
    const later: number[] = [];
    for (const [n, key] of created.entries()) {
      let answered = 0;
      while (answered === 0) {
        const res = await rest(urls[0], 'DELETE', `/${key.id}`, token()).catch(() => null);
        if (res?.status === 204) answered = performance.now();
        else if (res && res.status !== 503) throw new Error(`(l) revoking answered ${res.status}`);
        else if (performance.now() - switched > GIVE_UP_MS) throw new Error('(l) writes did not come back after the switch');
      }
      if (n === 0) firstWriteAfterSwitchMs = Math.round(answered - switched);
      const reach = await Promise.all(urls.map((url) => refusedAt(url, key.raw_key, answered + GIVE_UP_MS)));
      if (reach.some((at) => at === null)) {
        notReached += 1;
        continue;
      }
      const fromAnswer = (reach as number[]).map((at) => Math.max(0, Math.round(at - answered)));
      if (n === 0) firstRevocationReachMs = fromAnswer;
      else later.push(Math.max(...fromAnswer));
    }
    later.sort((a, b) => a - b);
    const at = (q: number) => later[Math.min(later.length - 1, Math.floor(q * later.length))] ?? 0;
    return {
      replicas: 3,
      staleAfterMs,
      switchMs: Math.round(switched - switchStarted),
      firstWriteAfterSwitchMs,
      firstRevocationReachMs,
      laterRevocations: { revoked: later.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: later.at(-1) ?? 0 },
      notReached,
    };
  } finally {
    for (const r of replicas) await r.stop();
    await proxy.stop();
    pg.stop();
  }
}

function rest(url: string, method: string, route: string, token: string, body?: unknown): Promise<Response> {
  return fetch(`${url}/api/v1/api-keys${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Polls until a 401 (its arrival time) or the deadline (null); a 503 while the replica recovers is polled through. */
async function refusedAt(url: string, rawKey: string, deadline: number): Promise<number | null> {
  while (performance.now() < deadline) {
    const status = await mcpStatus(url, rawKey).catch(() => 0);
    if (status === 401) return performance.now();
    if (status !== 200 && status !== 503 && status !== 0) throw new Error(`(l) polling answered ${status}`);
  }
  return null;
}
