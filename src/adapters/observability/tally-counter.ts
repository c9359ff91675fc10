import { Counter, Registry } from 'prom-client';

/**
 * A counter over one label with a fixed set of values, bumped on the request
 * path as a plain number and copied into its prom-client Counter when
 * /metrics is read (prom-client's own inc hashes the labels on every call).
 * Every value's series shows from the start, at 0.
 */
export class TallyCounter<V extends string> {
  private readonly counts = new Map<V, number>();

  constructor(registry: Registry, options: { name: string; help: string; label: string; values: readonly V[] }) {
    const { label, values } = options;
    for (const value of values) this.counts.set(value, 0);
    const counts = this.counts;
    new Counter({
      name: options.name,
      help: options.help,
      labelNames: [label],
      registers: [registry],
      collect() {
        this.reset();
        for (const [value, n] of counts) this.inc({ [label]: value }, n);
      },
    });
  }

  inc(value: V): void {
    this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
  }
}
