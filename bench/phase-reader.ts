import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { PhaseSummary } from './phase-probe';

/** The bench's side of phase-probe.ts: each mark() is what the service's calls since the last mark took. */
export interface PhaseProbe {
  mark(): Promise<PhaseSummary>;
}

export function phaseProbe(pid: number, file: string): PhaseProbe {
  return {
    async mark() {
      rmSync(file, { force: true });
      process.kill(pid, 'SIGUSR2');
      for (let waited = 0; !existsSync(file); waited += 20) {
        if (waited > 5000) throw new Error(`the service (pid ${pid}) wrote no phases to ${file}: is BENCH_PHASES's probe loaded?`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return JSON.parse(readFileSync(file, 'utf8')) as PhaseSummary;
    },
  };
}

/** keygate's summary as lines for the bench's output, beside the third side's. */
export function phaseLines(keygate: PhaseSummary, other: { name: string; summary: PhaseSummary }): string[] {
  // The probe knows the audit statement by its name (phase-probe.ts): a call it cannot follow to the end is not counted.
  if (keygate.calls === 0 || other.summary.calls === 0)
    return [`    inside each process, by phase: no call followed to its end in keygate or in ${other.name} (the audit statement renamed?)`];
  const cells = (s: PhaseSummary, name: string) => s.phases[name].map((us, i) => String(us).padStart(i === 2 ? 7 : 6)).join('');
  const lines = [
    `    inside each process, by phase (phase-probe.ts; µs p50 p90 p99): keygate, ${keygate.calls} calls; ${other.name}, ${other.summary.calls} calls`,
  ];
  for (const name of Object.keys(keygate.phases))
    lines.push(`      ${name.padEnd(30)}${cells(keygate, name)}   |${cells(other.summary, name)}`);
  const collected = (s: PhaseSummary) => `${s.gcOverlapped} of the calls, ${s.slowestGcOverlapped} of the slowest ${s.slowest}`;
  lines.push(`      a garbage collection overlapped: keygate ${collected(keygate)}; ${other.name} ${collected(other.summary)}`);
  return lines;
}
