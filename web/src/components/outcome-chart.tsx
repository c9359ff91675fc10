import { OUTCOME_FILLS, patternFill } from '../charts/fills';
import { UsageReport } from '../api';
import { bucketLabel, bucketStarts, countsAt, OUTCOMES } from '../usage-buckets';
import { BarChart } from './bar-chart';

/** Calls over time, one stacked bar per bucket, by outcome (a report with group_by=outcome). */
export function OutcomeChart({ report, caption }: { report: UsageReport; caption: string }) {
  const starts = bucketStarts(report);
  const counts = OUTCOMES.map((outcome) =>
    countsAt(
      report.series.find((s) => s.group === outcome),
      starts,
    ),
  );
  const series = OUTCOMES.map((outcome, i) => {
    const fill = OUTCOME_FILLS[outcome];
    return { label: `${outcome} (${fill.says})`, data: counts[i], fill: patternFill(fill.colour, fill.mark) };
  });
  // The table lists the buckets with calls; the others are zero.
  const rows = starts.map((start, i) => ({ start, counts: counts.map((c) => c[i]) })).filter((row) => row.counts.some((n) => n > 0));
  return (
    <BarChart
      caption={caption}
      labels={starts.map((s) => bucketLabel(s, report.bucket))}
      series={series}
      stacked
      table={
        <table>
          <thead>
            <tr>
              <th scope="col">{report.bucket === 'day' ? 'Day (UTC)' : `${report.bucket === 'hour' ? 'Hour' : 'Minute'} from (UTC)`}</th>
              {OUTCOMES.map((o) => (
                <th scope="col" key={o}>
                  {o}
                </th>
              ))}
              <th scope="col">All</th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colSpan={OUTCOMES.length + 2}>No calls in this range.</td>
              </tr>
            ) : (
              rows.map((row) => (
                <tr key={row.start}>
                  <th scope="row">{bucketLabel(row.start, report.bucket)}</th>
                  {row.counts.map((n, i) => (
                    <td key={OUTCOMES[i]}>{n}</td>
                  ))}
                  <td>{row.counts.reduce((a, b) => a + b, 0)}</td>
                </tr>
              ))
            )}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              {counts.map((c, i) => (
                <td key={OUTCOMES[i]}>{c.reduce((a, b) => a + b, 0)}</td>
              ))}
              <td>{report.total.count}</td>
            </tr>
          </tfoot>
        </table>
      }
    />
  );
}
