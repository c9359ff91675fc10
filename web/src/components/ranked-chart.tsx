import { ComponentChildren } from 'preact';
import { SERIES_COLOUR } from '../charts/fills';
import { UsageStats } from '../api';
import { msText } from '../usage-buckets';
import { BarChart } from './bar-chart';

export interface RankedRow {
  id: string;
  /** The bar's axis label: plain text. */
  label: string;
  /** The table's first cell: may be a link. */
  name: ComponentChildren;
  total: UsageStats;
}

/** One horizontal bar per row (a tool, a key, a user) by its call count, p95 beside its name. */
export function RankedChart({ rows, caption, what }: { rows: RankedRow[]; caption: string; what: string }) {
  return (
    <BarChart
      caption={caption}
      labels={rows.map((r) => `${r.label} (p95 ${msText(r.total.p95_ms)})`)}
      series={[{ label: 'Calls', data: rows.map((r) => r.total.count), fill: SERIES_COLOUR }]}
      horizontal
      table={
        <table>
          <thead>
            <tr>
              <th scope="col">{what}</th>
              <th scope="col">Calls</th>
              <th scope="col">p50</th>
              <th scope="col">p95</th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colSpan={4}>No calls in this range.</td>
              </tr>
            ) : (
              rows.map((r) => (
                <tr key={r.id}>
                  <th scope="row">{r.name}</th>
                  <td>{r.total.count}</td>
                  <td>{msText(r.total.p50_ms)}</td>
                  <td>{msText(r.total.p95_ms)}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      }
    />
  );
}
