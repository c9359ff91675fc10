import { execFile } from 'node:child_process';
import path from 'node:path';

/** The part of autocannon's -j report read here. */
interface AutocannonReport {
  requests: { total: number; average: number };
  latency: { p50: number; p99: number };
  statusCodeStats?: Record<string, { count: number }>;
  errors?: number;
  timeouts?: number;
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  statusCounts: Record<string, number>;
  /** Connection errors and timeouts autocannon counted (a stalled target shows here, not in the statuses). */
  errors: number;
  timeouts: number;
}

export interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
  seconds: number;
  connections: number;
  /** Send exactly this many requests instead of loading for `seconds`. */
  amount?: number;
  /** Each `[<id>]` in the body becomes a fresh random id per request (a session refuses two requests with one id in flight). */
  idReplacement?: boolean;
}

const AUTOCANNON = path.resolve(__dirname, '..', '..', 'node_modules', 'autocannon', 'autocannon.js');

/** Runs autocannon in its own process, so the load generator never shares a core's event loop with the target. */
export function load(spec: LoadSpec): Promise<LoadResult> {
  const bound = spec.amount === undefined ? ['-d', String(spec.seconds)] : ['-a', String(spec.amount)];
  const args = [
    AUTOCANNON,
    '-j',
    ...bound,
    '-c',
    String(spec.connections),
    '-m',
    'POST',
    '-b',
    spec.body,
    ...(spec.idReplacement ? ['-I'] : []),
  ];
  for (const [name, value] of Object.entries(spec.headers)) args.push('-H', `${name}=${value}`);
  args.push(spec.url);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (error: Error | null, stdout: string) => {
      if (error) return reject(error);
      const r = JSON.parse(stdout) as AutocannonReport;
      const statusCounts: Record<string, number> = {};
      for (const [k, v] of Object.entries(r.statusCodeStats ?? {})) statusCounts[k] = v.count;
      resolve({
        requests: r.requests.total,
        requestsPerSecond: r.requests.average,
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        statusCounts,
        errors: r.errors ?? 0,
        timeouts: r.timeouts ?? 0,
      });
    });
  });
}
