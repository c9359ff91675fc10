import { LoadResult } from './load';
import { cpuSeconds } from './processes';

export type Measured = LoadResult & { cpuSeconds: number; cpuMicrosPerRequest: number };

export interface Side {
  pid: number;
  run: (seconds: number) => Promise<LoadResult>;
}

/** Adds the target's CPU time per answered request, which does not depend on how busy the load generator keeps it. */
export async function measured(pid: number, run: () => Promise<LoadResult>): Promise<Measured> {
  const before = cpuSeconds(pid);
  const result = await run();
  const cpu = cpuSeconds(pid) - before;
  return { ...result, cpuSeconds: cpu, cpuMicrosPerRequest: Math.round((cpu / result.requests) * 1e6) };
}

/**
 * A ceiling and the figure set against it, in alternating rounds adding up to
 * `seconds` each: on a shared machine whose speed drifts from one second to
 * the next, back-to-back runs would measure the drift as much as the service.
 * Rounds last equally long, so the ratio of answered requests is the ratio of
 * throughputs.
 */
export async function alternate(ceiling: Side, figure: Side, seconds: number, rounds: number) {
  const pairs: { ceiling: Measured; figure: Measured }[] = [];
  for (let round = 0; round < rounds; round++) {
    const c = await measured(ceiling.pid, () => ceiling.run(seconds / rounds));
    const f = await measured(figure.pid, () => figure.run(seconds / rounds));
    pairs.push({ ceiling: c, figure: f });
  }
  const c = combined(pairs.map((p) => p.ceiling));
  const f = combined(pairs.map((p) => p.figure));
  return {
    ceiling: c,
    figure: f,
    figureRounds: pairs.map((p) => p.figure),
    ratio: round3(f.requests / c.requests),
    roundRatios: pairs.map((p) => round3(p.figure.requests / p.ceiling.requests)),
  };
}

/** Rounds of equal length as one run: mean req/s, median p50, worst p99. */
export function combined(rounds: Measured[]): Measured {
  const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
  const cpu = rounds.reduce((sum, r) => sum + r.cpuSeconds, 0);
  const statusCounts: Record<string, number> = {};
  for (const r of rounds) for (const [status, n] of Object.entries(r.statusCounts)) statusCounts[status] = (statusCounts[status] ?? 0) + n;
  const p50s = rounds.map((r) => r.p50Ms).sort((x, y) => x - y);
  return {
    requests,
    requestsPerSecond: Math.round((rounds.reduce((sum, r) => sum + r.requestsPerSecond, 0) / rounds.length) * 10) / 10,
    p50Ms: p50s[Math.floor(p50s.length / 2)],
    p99Ms: Math.max(...rounds.map((r) => r.p99Ms)),
    statusCounts,
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    timeouts: rounds.reduce((sum, r) => sum + r.timeouts, 0),
    cpuSeconds: Math.round(cpu * 100) / 100,
    cpuMicrosPerRequest: Math.round((cpu / requests) * 1e6),
  };
}

export const round3 = (x: number) => Math.round(x * 1000) / 1000;
