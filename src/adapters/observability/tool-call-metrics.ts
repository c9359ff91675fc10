import { Counter, Histogram, Registry } from 'prom-client';
import { LATENCY_BOUNDS_MS, OTHER_TOOL, USAGE_OUTCOMES, UsageOutcome } from '../../domain/usage';

/** Distinct `tool` label values one process exposes at most; later tools are `other`. */
export const MAX_TOOL_LABELS = 100;

/**
 * keygate_tool_calls_total{tool,outcome} and
 * keygate_tool_call_duration_seconds{tool}, fed by the usage hook (the same
 * outcomes as GET /api/v1/usage). The tool label is bounded: the first 100
 * names a process sees, `other` beyond (an unknown tool is `other` already).
 * Durations are observed for calls that ran (called, upstream_error) only: a
 * refusal takes no time and would only pull the quantiles down.
 */
export class ToolCallMetrics {
  private readonly tools = new Set<string>([OTHER_TOOL]);
  private readonly calls: Counter<'tool' | 'outcome'>;
  private readonly durations: Histogram<'tool'>;
  /** Each series' child, so a call hashes no label set (both maps are bounded by the tool labels). */
  private readonly callSeries = new Map<string, { inc(): void }>();
  private readonly durationSeries = new Map<string, { observe(seconds: number): void }>();

  constructor(registry: Registry, prefix: string) {
    this.calls = new Counter({
      name: `${prefix}tool_calls_total`,
      help: 'tools/call by tool and outcome: called, denied, rate_limited, quota_exhausted, upstream_error',
      labelNames: ['tool', 'outcome'] as const,
      registers: [registry],
    });
    this.durations = new Histogram({
      name: `${prefix}tool_call_duration_seconds`,
      help: 'Time tools/call took in keygate, by tool (calls that ran: called or upstream_error)',
      labelNames: ['tool'] as const,
      buckets: LATENCY_BOUNDS_MS.map((ms) => ms / 1000),
      registers: [registry],
    });
    // Series exist at 0 from the start, so rate() works before the first call.
    for (const outcome of USAGE_OUTCOMES) this.calls.inc({ tool: OTHER_TOOL, outcome }, 0);
  }

  record(tool: string, outcome: UsageOutcome, durationMs: number): void {
    const label = this.labelOf(tool);
    const id = `${label}\u0000${outcome}`;
    let calls = this.callSeries.get(id);
    if (!calls) this.callSeries.set(id, (calls = this.calls.labels({ tool: label, outcome })));
    calls.inc();
    if (outcome !== 'called' && outcome !== 'upstream_error') return;
    let durations = this.durationSeries.get(label);
    if (!durations) this.durationSeries.set(label, (durations = this.durations.labels({ tool: label })));
    durations.observe(Math.max(durationMs, 0) / 1000);
  }

  private labelOf(tool: string): string {
    if (this.tools.has(tool)) return tool;
    if (this.tools.size >= MAX_TOOL_LABELS) return OTHER_TOOL;
    this.tools.add(tool);
    return tool;
  }
}
