export interface LifecycleStep {
  name: string;
  start?: () => void | Promise<void>;
  stop?: () => Promise<void>;
}

/**
 * What has to run before the first request and after the last one, as the
 * container lists it: started in order, stopped in reverse order. Every stop
 * runs even when an earlier one fails, so a failed flush still closes the pool.
 */
export class Lifecycle {
  constructor(readonly steps: readonly LifecycleStep[]) {}

  async start(): Promise<void> {
    for (const step of this.steps) await step.start?.();
  }

  /** The stops in the order they run, for a shutdown that reports each one (graceful-shutdown.ts). */
  stopSteps(): { name: string; run: () => Promise<void> }[] {
    return [...this.steps].reverse().flatMap(({ name, stop }) => (stop ? [{ name, run: stop }] : []));
  }

  /** Runs every stop; rethrows the first failure once all have run. */
  async stop(): Promise<void> {
    const failures: unknown[] = [];
    for (const step of this.stopSteps()) await step.run().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  }
}
