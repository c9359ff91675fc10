import { useState } from 'preact/hooks';
import { RangeId } from '../usage';
import { ErrorNote } from './error-note';
import { OutcomeChart } from './outcome-chart';
import { RangePicker } from './range-picker';
import { RankedChart } from './ranked-chart';
import { useUsageReports } from './usage-loader';

const TOP_TOOLS = 10;

/** A key's tool calls over the chosen range: by outcome over time, and its busiest tools. */
export function KeyUsage({ id }: { id: string }) {
  const [range, setRange] = useState<RangeId>('24h');
  const { reports, error } = useUsageReports(range, [
    { key_id: id, group_by: 'outcome' },
    { key_id: id, group_by: 'tool' },
  ]);
  const [byOutcome, byTool] = reports ?? [];
  return (
    <section aria-labelledby="usage-title">
      <h2 id="usage-title">Usage</h2>
      <RangePicker value={range} onChange={setRange} />
      <ErrorNote error={error} />
      {!reports && !error && <p class="muted">Loading…</p>}
      {byOutcome && <OutcomeChart report={byOutcome} caption={`Tool calls of this key by outcome, ${byOutcome.total.count} in all`} />}
      {byTool && (
        <RankedChart
          caption={`Top tools of this key by calls, with p95 latency`}
          what="Tool"
          rows={byTool.series
            .slice(0, TOP_TOOLS)
            .map((s) => ({ id: s.group, label: s.group, name: <code>{s.group}</code>, total: s.total }))}
        />
      )}
    </section>
  );
}
