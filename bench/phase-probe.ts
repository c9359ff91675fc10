import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { renameSync, writeFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

/**
 * Loaded with `--require` into the service and (j)'s third side (the floor,
 * bare-proxy.ts, or BENCH_AGAINST's build) by BENCH_PHASES=on (BENCH_ONLY=j):
 * where a call spends its time inside the process, from Node's and undici's
 * diagnostics channels, with no change to the code it measures. Each SIGUSR2 writes what the calls since the last
 * one took to BENCH_PHASES_FILE, as PhaseSummary JSON, and starts again; the
 * bench sends one before (j)'s fixed-rate rounds and one after.
 */

/** One incoming call's moments, as performance.now() gives them (ms). */
interface Call {
  start: number;
  /** The upstream POST's headers on the socket. */
  sent?: number;
  /** The upstream's answer's headers, then its last byte. */
  answered?: number;
  read?: number;
  /** The audit statement (the floor: its insert) sent, and its result back. */
  auditSent?: number;
  audited?: number;
}

export const PHASES = [
  'before the upstream request',
  'upstream answer headers',
  'upstream answer body',
  'to the audit statement',
  'audit statement round trip',
  'to the answer written',
  'in the process, in all',
] as const;

export interface PhaseSummary {
  calls: number;
  /** Per phase, µs: p50, p90, p99. */
  phases: Record<string, [number, number, number]>;
  /** Calls whose time in the process overlapped a garbage collection, among all and among the slowest 1%. */
  gcOverlapped: number;
  slowestGcOverlapped: number;
  slowest: number;
}

const calls = new AsyncLocalStorage<Call>();
const upstreamRequests = new WeakMap<object, Call>();
let done: { call: Call; finished: number }[] = [];
const pauses: [number, number][] = [];

subscribe('http.server.request.start', (message) => {
  const { request } = message as { request: { method?: string; url?: string } };
  if (request.method !== 'POST' || !request.url?.startsWith('/mcp')) return;
  const call: Call = { start: performance.now() };
  (request as { phaseProbe?: Call }).phaseProbe = call;
  // What the request's handlers start from here on runs in this context, the upstream request and the audit write included.
  calls.enterWith(call);
});
subscribe('undici:request:create', (message) => {
  const { request } = message as { request: { method?: string } };
  const call = calls.getStore();
  if (call !== undefined && call.sent === undefined && request.method === 'POST') upstreamRequests.set(request, call);
});
const at = (field: 'sent' | 'answered' | 'read') => (message: unknown) => {
  const call = upstreamRequests.get((message as { request: object }).request);
  if (call !== undefined && call[field] === undefined) call[field] = performance.now();
};
subscribe('undici:client:sendHeaders', at('sent'));
subscribe('undici:request:headers', at('answered'));
subscribe('undici:request:trailers', at('read'));
subscribe('http.server.response.finish', (message) => {
  const call = (message as { request: { phaseProbe?: Call } }).request.phaseProbe;
  if (call?.read !== undefined) done.push({ call, finished: performance.now() });
});

// The audit batch is written from a callback the call's append scheduled, so it runs in the call's context.
type Query = (this: unknown, config: unknown, ...rest: unknown[]) => unknown;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pool = require('pg-pool') as { prototype: { query: Query } };
const query = pool.prototype.query;
pool.prototype.query = function (this: unknown, config: unknown, ...rest: unknown[]) {
  const call = calls.getStore();
  const result = query.call(this, config, ...rest);
  if (call !== undefined && call.auditSent === undefined && isAuditStatement(config)) {
    call.auditSent = performance.now();
    void (result as Promise<unknown>).then(
      () => void (call.audited = performance.now()),
      () => undefined,
    );
  }
  return result;
};

/** keygate's audit statement, or the floor's insert. */
function isAuditStatement(config: unknown): boolean {
  if (typeof config === 'string') return config.startsWith('INSERT INTO bench_floor_calls');
  return (config as { name?: string } | null)?.name === 'audit_events.append_at_head';
}

new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) pauses.push([entry.startTime, entry.startTime + entry.duration]);
  if (pauses.length > 10_000) pauses.splice(0, pauses.length - 10_000);
}).observe({ entryTypes: ['gc'] });

process.on('SIGUSR2', () => {
  const file = process.env.BENCH_PHASES_FILE;
  if (file) {
    // Whole or not at all, for the bench polling for it.
    writeFileSync(`${file}.part`, JSON.stringify(summary(done)));
    renameSync(`${file}.part`, file);
  }
  done = [];
});

function summary(all: { call: Call; finished: number }[]): PhaseSummary {
  const complete = all.filter(({ call }) => call.sent !== undefined && call.answered !== undefined && call.audited !== undefined);
  const spans = complete.map(({ call, finished }) => {
    const c = call as Required<Call>;
    return [
      c.sent - c.start,
      c.answered - c.sent,
      c.read - c.answered,
      c.auditSent - c.read,
      c.audited - c.auditSent,
      finished - c.audited,
      finished - c.start,
    ];
  });
  const phases: PhaseSummary['phases'] = {};
  PHASES.forEach((name, i) => {
    const sorted = spans.map((span) => span[i]).sort((a, b) => a - b);
    phases[name] = [0.5, 0.9, 0.99].map((p) => Math.round(1000 * (sorted[Math.floor(p * (sorted.length - 1))] ?? 0))) as [
      number,
      number,
      number,
    ];
  });
  const collected = ({ call, finished }: { call: Call; finished: number }) =>
    pauses.some(([from, to]) => from < finished && to > call.start);
  const slowest = [...complete]
    .sort((a, b) => b.finished - b.call.start - (a.finished - a.call.start))
    .slice(0, Math.ceil(complete.length / 100));
  return {
    calls: complete.length,
    phases,
    gcOverlapped: complete.filter(collected).length,
    slowestGcOverlapped: slowest.filter(collected).length,
    slowest: slowest.length,
  };
}
