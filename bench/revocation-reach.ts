import { performance } from 'node:perf_hooks';
import { keyIdOf, ownerOf, rawKeyOf } from './seed-keys';

export interface ReachResult {
  revoked: number;
  /** From the DELETE's send until both polled replicas have answered 401. */
  fromSendMs: { p50: number; p99: number; max: number };
  /** The same from the DELETE's 204 (negative when the replicas refused before the 204 came back). */
  from204Ms: { p50: number; p99: number; max: number };
  deleteMs: { p50: number; p99: number };
  /** Keys a replica still accepted after GIVE_UP_MS. */
  notReached: number;
}

const GIVE_UP_MS = 5000;
const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

/**
 * (g): revokes the seeded keys `indices` one by one through the first
 * replica's REST API while the others are polled with each key in a tight
 * loop (one request in flight per replica), and times until both refuse.
 * Each key is used on the polled replicas first, so it sits in their caches
 * and only the change notification can make them refuse it.
 */
export async function revocationReach(baseUrls: string[], indices: number[], tokenFor: (sub: string) => string): Promise<ReachResult> {
  const [writer, ...polled] = baseUrls;
  const fromSend: number[] = [];
  const from204: number[] = [];
  const deletes: number[] = [];
  let notReached = 0;
  for (const i of indices) {
    const rawKey = rawKeyOf(i);
    for (const url of polled) {
      const status = await mcpStatus(url, rawKey);
      if (status !== 200) throw new Error(`key ${i} was refused by ${url} before its revocation (${status})`);
    }
    const sent = performance.now();
    const deleted = fetch(`${writer}/api/v1/api-keys/${keyIdOf(i)}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${tokenFor(ownerOf(i))}` },
    }).then(async (res) => {
      await res.arrayBuffer();
      if (res.status !== 204) throw new Error(`revoking key ${i} answered ${res.status}`);
      return performance.now();
    });
    deleted.catch(() => undefined); // awaited below, after the polls; a failure must not count as unhandled meanwhile
    const refused = await Promise.all(polled.map((url) => refusedAt(url, rawKey, sent + GIVE_UP_MS)));
    const answered = await deleted;
    if (refused.some((at) => at === null)) {
      notReached += 1;
      continue;
    }
    const both = Math.max(...(refused as number[]));
    fromSend.push(both - sent);
    from204.push(both - answered);
    deletes.push(answered - sent);
  }
  return { revoked: indices.length, fromSendMs: stats(fromSend), from204Ms: stats(from204), deleteMs: stats(deletes), notReached };
}

/** Polls until a 401 (its arrival time) or the deadline (null). */
async function refusedAt(url: string, rawKey: string, deadline: number): Promise<number | null> {
  while (performance.now() < deadline) {
    const status = await mcpStatus(url, rawKey);
    if (status === 401) return performance.now();
    if (status !== 200) throw new Error(`polling answered ${status}`);
  }
  return null;
}

/** The status of a /mcp tools/list with this key (the body read and dropped). */
export async function mcpStatus(url: string, rawKey: string): Promise<number> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': rawKey },
    body: TOOLS_LIST,
  });
  await res.arrayBuffer();
  return res.status;
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => round2(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN);
  return { p50: at(0.5), p99: at(0.99), max: round2(sorted[sorted.length - 1] ?? NaN) };
}

const round2 = (x: number) => Math.round(x * 100) / 100;
