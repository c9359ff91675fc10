import { Registry } from 'prom-client';
import { MAX_TOOL_LABELS, ToolCallMetrics } from '../../../../src/adapters/observability/tool-call-metrics';

describe('ToolCallMetrics', () => {
  it('counts calls by tool and outcome and times the calls that ran, with at most 100 tool labels (other beyond)', async () => {
    const registry = new Registry();
    const metrics = new ToolCallMetrics(registry, 'keygate_');
    for (let n = 0; n < MAX_TOOL_LABELS + 20; n += 1) metrics.record(`tool-${n}`, 'called', 12);
    metrics.record('tool-0', 'denied', 0);
    const text = await registry.metrics();
    const tools = new Set([...text.matchAll(/keygate_tool_calls_total\{tool="([^"]*)"/g)].map((m) => m[1]));
    expect(tools.size).toBe(MAX_TOOL_LABELS);
    expect(text).toContain('keygate_tool_calls_total{tool="other",outcome="called"} 21');
    expect(text).toContain('keygate_tool_calls_total{tool="tool-0",outcome="denied"} 1');
    expect(text).toContain('keygate_tool_call_duration_seconds_bucket{le="0.02",tool="tool-0"} 1');
    // A refusal is counted, not timed.
    expect(text).toContain('keygate_tool_call_duration_seconds_count{tool="tool-0"} 1');
  });
});
