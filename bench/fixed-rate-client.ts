import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { FixedRateReport, FixedRateSpec } from './fixed-rate';

/**
 * The load generator of fixed-rate.ts, in its own process: request n is
 * sent at start + n / rate whether or not earlier ones were answered (open
 * loop), and its latency runs from that planned time to the last byte of the
 * answer, so a stall shows in every request it delays (no coordinated
 * omission). `[<id>]` in the body becomes the request's number.
 */
async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2]) as FixedRateSpec;
  const url = new URL(spec.url);
  const pool = new Pool(url.origin, { connections: spec.connections, pipelining: 1 });
  const path = url.pathname + url.search;
  // Connections opened and the target warmed at the same rate; their figures are dropped.
  await run(pool, path, spec, Math.round(spec.rate * spec.warmUpSeconds), 'w');
  const report = await run(pool, path, spec, Math.round(spec.rate * spec.seconds), '');
  await pool.close();
  process.stdout.write(JSON.stringify(report));
}

async function run(pool: Pool, path: string, spec: FixedRateSpec, total: number, idPrefix: string): Promise<FixedRateReport> {
  const intervalMs = 1000 / spec.rate;
  const latenciesMs: number[] = [];
  const statusCounts: Record<string, number> = {};
  let errors = 0;
  let unexpected = 0;
  const pending: Promise<void>[] = [];
  const send = async (n: number, planned: number): Promise<void> => {
    try {
      const { statusCode, body } = await pool.request({
        path,
        method: 'POST',
        headers: spec.headers,
        body: spec.body.replaceAll('[<id>]', `${idPrefix}${n}`),
      });
      const text = await body.text();
      latenciesMs.push(performance.now() - planned);
      statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
      if (spec.expect !== undefined && !text.includes(spec.expect)) unexpected += 1;
    } catch {
      errors += 1;
    }
  };
  const start = performance.now() + 1;
  let n = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      for (; n < total && start + n * intervalMs <= now; n++) pending.push(send(n, start + n * intervalMs));
      if (n < total) setTimeout(tick, Math.max(0, start + n * intervalMs - performance.now()));
      else resolve();
    };
    tick();
  });
  await Promise.all(pending);
  return { sent: total, seconds: (performance.now() - start) / 1000, latenciesMs, statusCounts, errors, unexpected };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
