import { execFile } from 'node:child_process';
import { LoadResult } from './load';
import { rawKeyOf } from './seed-keys';

interface RawRequest {
  headers: Record<string, string>;
}

/** autocannon ships no types: the little of its API used here. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- an untyped module: require() lets the cast below give it its type
const autocannon = require('autocannon') as (options: Record<string, unknown>) => Promise<{
  requests: { total: number; average: number };
  latency: { p50: number; p99: number };
  statusCodeStats?: Record<string, { count: number }>;
  errors?: number;
  timeouts?: number;
}>;

/** A load of /mcp whose requests take the seeded keys from..from+count-1 in turn, each request the next key. */
export interface RotatingLoadSpec {
  url: string;
  body: string;
  from: number;
  count: number;
  connections: number;
  /** Either a duration, or an exact number of requests (autocannon's `amount`). */
  seconds?: number;
  amount?: number;
}

/** Runs the load in its own process (this file as a script), as load.ts does with autocannon's CLI. */
export function rotatingLoad(spec: RotatingLoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [__filename, JSON.stringify(spec)], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout) as LoadResult);
    });
  });
}

async function run(spec: RotatingLoadSpec): Promise<LoadResult> {
  const keys = Array.from({ length: spec.count }, (_, i) => rawKeyOf(spec.from + i));
  let next = 0;
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    ...(spec.amount !== undefined ? { amount: spec.amount } : { duration: spec.seconds }),
    requests: [
      {
        method: 'POST',
        body: spec.body,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        // Each request builds its own headers: one shared object would send whatever key was set last.
        setupRequest: (request: RawRequest) => ({ ...request, headers: { ...request.headers, 'x-api-key': keys[next++ % keys.length] } }),
      },
    ],
  });
  const statusCounts: Record<string, number> = {};
  for (const [k, v] of Object.entries(result.statusCodeStats ?? {})) statusCounts[k] = v.count;
  return {
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    statusCounts,
    errors: result.errors ?? 0,
    timeouts: result.timeouts ?? 0,
  };
}

if (require.main === module) {
  run(JSON.parse(process.argv[2]) as RotatingLoadSpec).then(
    (result) => process.stdout.write(JSON.stringify(result)),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
