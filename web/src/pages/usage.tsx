import { useState } from 'preact/hooks';
import { ErrorNote } from '../components/error-note';
import { OutcomeChart } from '../components/outcome-chart';
import { RangePicker } from '../components/range-picker';
import { RankedChart, RankedRow } from '../components/ranked-chart';
import { useUsageReports } from '../components/usage-loader';
import { UsageSeries } from '../api';
import { RangeId } from '../usage';

const MINE = [{ group_by: 'key' }, { group_by: 'outcome' }];
const EVERYONE = [...MINE, { group_by: 'user' }];

function keyRow(s: UsageSeries): RankedRow {
  if (s.group === 'other') return { id: s.group, label: 'other keys', name: 'Other keys', total: s.total };
  if (s.group === 'oauth') return { id: s.group, label: 'OAuth access tokens', name: 'OAuth access tokens', total: s.total };
  const label = s.key_name ? `${s.key_name} (${s.key_prefix ?? ''}…)` : `deleted key ${s.group.slice(0, 8)}`;
  return { id: s.group, label, name: s.key_name ? <a href={`#/keys/${s.group}`}>{label}</a> : label, total: s.total };
}

function userRow(s: UsageSeries, me: string): RankedRow {
  const label = s.group === 'other' ? 'other users' : s.group === me ? `${s.group.slice(0, 8)} (you)` : s.group.slice(0, 8);
  return {
    id: s.group,
    label,
    name: (
      <span class="mono" title={s.group}>
        {label}
      </span>
    ),
    total: s.total,
  };
}

/** #/usage: the signed-in user's keys side by side and their calls over time; an admin also sees every user's totals. */
export function UsagePage({ admin, me }: { admin: boolean | null; me: string }) {
  const [range, setRange] = useState<RangeId>('24h');
  const { reports, error } = useUsageReports(range, admin === null ? null : admin ? EVERYONE : MINE);
  const [byKey, byOutcome, byUser] = reports ?? [];
  return (
    <section aria-labelledby="usage-page-title">
      <h1 id="usage-page-title">Usage</h1>
      <p class="muted">Tool calls through /mcp, counted per minute and summed by the API; times are UTC.</p>
      <RangePicker value={range} onChange={setRange} />
      <ErrorNote error={error} />
      {!reports && !error && <p class="muted">Loading…</p>}
      {byKey && (
        <>
          <h2>Your keys</h2>
          <RankedChart
            caption={`Tool calls per key, with p95 latency, ${byKey.total.count} in all`}
            what="Key"
            rows={byKey.series.map(keyRow)}
          />
        </>
      )}
      {byOutcome && (
        <>
          <h2>Over time</h2>
          <OutcomeChart report={byOutcome} caption="Tool calls of all your keys by outcome" />
        </>
      )}
      {byUser && (
        <>
          <h2>All users</h2>
          <RankedChart
            caption={`Tool calls per user (every user's keys), with p95 latency, ${byUser.total.count} in all`}
            what="User"
            rows={byUser.series.map((s) => userRow(s, me))}
          />
        </>
      )}
    </section>
  );
}
