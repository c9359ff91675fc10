import { execFile } from 'node:child_process';
import path from 'node:path';

export interface FixedRateSpec {
  url: string;
  headers: Record<string, string>;
  /** `[<id>]` in it becomes each request's own number (a session refuses two requests with one id in flight). */
  body: string;
  /** Requests per second, sent on schedule whatever the answers do. */
  rate: number;
  seconds: number;
  /** Sent at the same rate before, not counted. */
  warmUpSeconds: number;
  /** Sockets the generator may open: enough that none waits for another at this rate. */
  connections: number;
  /** Text every answer must contain (the result), else it counts as unexpected. */
  expect?: string;
}

export interface FixedRateReport {
  sent: number;
  seconds: number;
  latenciesMs: number[];
  statusCounts: Record<string, number>;
  /** Requests that got no answer (connection errors). */
  errors: number;
  /** Answers without `expect`. */
  unexpected: number;
}

export interface LatencyFigure {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  statusCounts: Record<string, number>;
  errors: number;
  unexpected: number;
}

const CLIENT = path.resolve(__dirname, 'fixed-rate-client.js');

/**
 * A fixed-rate (open-loop) load from a process of its own. autocannon is
 * closed-loop, and it records whole milliseconds, too coarse for a target
 * of 1 ms added.
 */
export function fixedRate(spec: FixedRateSpec): Promise<FixedRateReport> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLIENT, JSON.stringify(spec)], { maxBuffer: 256 * 1024 * 1024 }, (error: Error | null, stdout: string) => {
      if (error) return reject(error);
      resolve(JSON.parse(stdout) as FixedRateReport);
    });
  });
}

/**
 * The same fixed rate against a reference (the upstream called directly)
 * and a figure (through keygate) in alternating rounds, as rounds.ts does for
 * throughput; each side's rounds are pooled before the percentiles are taken,
 * and `added` is the figure's percentile minus the reference's. A `floor`
 * (the same hops with nothing of ours, bare-proxy.ts, or another build) runs
 * in the same rounds; it gets its own `added`, and `beyond` is the figure's
 * percentile minus the floor's.
 *
 * The sides take turns at going first: round r starts with side r mod n.
 * In a fixed order, two runs of one build as figure and floor differed by
 * 0.1–0.25 ms at p50, mostly in favour of the one that ran last.
 */
export async function alternateFixedRate(
  reference: (seconds: number) => Promise<FixedRateReport>,
  figure: (seconds: number) => Promise<FixedRateReport>,
  seconds: number,
  rounds: number,
  floor?: (seconds: number) => Promise<FixedRateReport>,
) {
  const references: FixedRateReport[] = [];
  const figures: FixedRateReport[] = [];
  const floors: FixedRateReport[] = [];
  const sides: [(seconds: number) => Promise<FixedRateReport>, FixedRateReport[]][] = [
    [reference, references],
    [figure, figures],
  ];
  if (floor) sides.push([floor, floors]);
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < sides.length; turn++) {
      const [run, reports] = sides[(round + turn) % sides.length];
      reports.push(await run(seconds / rounds));
    }
  }
  const r = pooled(references);
  const f = pooled(figures);
  const fl = floor ? pooled(floors) : undefined;
  return { reference: r, figure: f, added: minus(f, r), floor: fl && { figure: fl, added: minus(fl, r), beyond: minus(f, fl) } };
}

export function pooled(reports: FixedRateReport[]): LatencyFigure {
  const latencies = reports.flatMap((r) => r.latenciesMs).sort((x, y) => x - y);
  const statusCounts: Record<string, number> = {};
  for (const r of reports) for (const [status, n] of Object.entries(r.statusCounts)) statusCounts[status] = (statusCounts[status] ?? 0) + n;
  return {
    requests: latencies.length,
    p50Ms: round2(percentile(latencies, 0.5)),
    p99Ms: round2(percentile(latencies, 0.99)),
    maxMs: round2(latencies[latencies.length - 1] ?? NaN),
    statusCounts,
    errors: reports.reduce((sum, r) => sum + r.errors, 0),
    unexpected: reports.reduce((sum, r) => sum + r.unexpected, 0),
  };
}

/** Nearest rank: the smallest value at least a fraction `p` of the sorted values are at or below. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const minus = (x: LatencyFigure, y: LatencyFigure) => ({ p50Ms: round2(x.p50Ms - y.p50Ms), p99Ms: round2(x.p99Ms - y.p99Ms) });
