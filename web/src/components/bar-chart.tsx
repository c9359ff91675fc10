import { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { Chart } from '../charts/chart-setup';

export interface BarSeries {
  label: string;
  data: number[];
  fill: CanvasPattern | string;
}

interface Props {
  caption: string;
  labels: string[];
  series: BarSeries[];
  /** Bars across (one per category, e.g. a tool), not up. */
  horizontal?: boolean;
  stacked?: boolean;
  /** The same numbers as a table: what a screen reader or a keyboard user reads instead of the canvas. */
  table: ComponentChildren;
}

/**
 * One Chart.js bar chart in a figure, with its caption and the equivalent data table in a <details>.
 * The canvas is an image named by the caption; the table carries the data.
 */
export function BarChart({ caption, labels, series, horizontal = false, stacked = false, table }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const captionId = useId();
  useEffect(() => {
    if (!canvas.current) return;
    // Horizontal bars need room per row; set through the CSSOM, which the CSP (no inline style) allows.
    if (horizontal) canvas.current.parentElement!.style.height = `${Math.max(4, labels.length) * 32 + 60}px`;
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: {
        labels,
        datasets: series.map((s) => ({ label: s.label, data: s.data, backgroundColor: s.fill, maxBarThickness: 36 })),
      },
      options: {
        indexAxis: horizontal ? 'y' : 'x',
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { stacked, beginAtZero: true, ...(horizontal ? { ticks: { precision: 0 } } : {}) },
          y: { stacked, beginAtZero: true, ...(horizontal ? {} : { ticks: { precision: 0 } }) },
        },
        plugins: { legend: { display: series.length > 1, position: 'bottom' } },
      },
    });
    return () => chart.destroy();
  }, [JSON.stringify({ labels, horizontal, stacked, data: series.map((s) => [s.label, s.data]) })]);
  return (
    <figure class="chart">
      <figcaption id={captionId}>{caption}</figcaption>
      <div class="chart-box">
        <canvas ref={canvas} role="img" aria-labelledby={captionId} />
      </div>
      <details>
        <summary>Data table: {caption}</summary>
        <div class="table-wrap">{table}</div>
      </details>
    </figure>
  );
}
