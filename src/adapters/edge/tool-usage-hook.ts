import { Clock } from '../../application/ports/clock.port';
import { UsageTally } from '../../application/use-cases/usage/usage-tally';
import { UsageOutcome } from '../../domain/usage';
import { ToolCallMetrics } from '../observability/tool-call-metrics';

/** A tools/call's outcome as the edge knows it. */
export interface ToolUsage {
  userId: string;
  /** Null for a call made with a user's OAuth access token. */
  keyId: string | null;
  tool: string;
  outcome: UsageOutcome;
  durationMs: number;
}

/**
 * The one place a tools/call's outcome is counted, whichever path answered
 * it: the tool-call recorder (called, denied, upstream_error) and the usage
 * gate (rate_limited, quota_exhausted) call it. It feeds this replica's usage
 * tally (flushed to the usage tables) and the per-tool Prometheus series; a
 * map update and a counter, nothing written per call.
 */
export class ToolUsageHook {
  constructor(
    private readonly tally: UsageTally,
    private readonly metrics: ToolCallMetrics,
    private readonly clock: Clock,
  ) {}

  record(usage: ToolUsage): void {
    this.tally.record({ ...usage, at: this.clock.now() });
    this.metrics.record(usage.tool, usage.outcome, usage.durationMs);
  }
}
