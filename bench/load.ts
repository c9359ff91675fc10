import { execFile } from 'node:child_process';
import path from 'node:path';

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
  const args = [AUTOCANNON, '-j', ...bound, '-c', String(spec.connections), '-m', 'POST', '-b', spec.body, ...(spec.idReplacement ? ['-I'] : [])];
  for (const [name, value] of Object.entries(spec.headers)) args.push('-H', `${name}=${value}`);
  args.push(spec.url);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      if (error) return reject(error);
      const r = JSON.parse(stdout);
      const statusCounts: Record<string, number> = {};
      for (const [k, v] of Object.entries(r.statusCodeStats ?? {})) statusCounts[k] = (v as { count: number }).count;
      resolve({ requests: r.requests.total, requestsPerSecond: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, statusCounts, errors: r.errors ?? 0, timeouts: r.timeouts ?? 0 });
    });
  });
}
