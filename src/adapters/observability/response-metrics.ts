/** Kept per (method, route pattern, status); route patterns and statuses are few, so the map stays small. */
interface Series {
  /** `method="…",route="…",status="…"`, escaped once. */
  labels: string;
  count: number;
  sum: number;
  /** Responses per bucket, not cumulative; the last slot is past the largest bound. */
  perBucket: Float64Array;
}

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const COUNTER = 'keygate_http_requests_total';
const HISTOGRAM = 'keygate_http_request_duration_seconds';

/**
 * keygate_http_requests_total and keygate_http_request_duration_seconds,
 * counted in plain numbers on the request path and written out in the
 * Prometheus text format when /metrics is read. prom-client's inc and
 * observe hash the label set on every call, twice per response: about 10 µs
 * of a tools/call's CPU, which this takes down to a map lookup.
 */
export class ResponseMetrics {
  private readonly series = new Map<string, Series>();

  record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.series.get(key);
    if (s === undefined) {
      s = {
        labels: `method="${escaped(method)}",route="${escaped(route)}",status="${status}"`,
        count: 0,
        sum: 0,
        perBucket: new Float64Array(BUCKETS.length + 1),
      };
      this.series.set(key, s);
    }
    s.count += 1;
    s.sum += seconds;
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]) bucket += 1;
    s.perBucket[bucket] += 1;
  }

  /** Both metrics in the Prometheus text format, ending with a newline. */
  exposition(): string {
    const counter = [`# HELP ${COUNTER} HTTP requests answered, by method, route pattern and status`, `# TYPE ${COUNTER} counter`];
    const histogram = [
      `# HELP ${HISTOGRAM} Time from receiving a request to finishing its response, by method, route pattern and status`,
      `# TYPE ${HISTOGRAM} histogram`,
    ];
    for (const { labels, count, sum, perBucket } of this.series.values()) {
      counter.push(`${COUNTER}{${labels}} ${count}`);
      let below = 0;
      BUCKETS.forEach((le, i) => {
        below += perBucket[i];
        histogram.push(`${HISTOGRAM}_bucket{le="${le}",${labels}} ${below}`);
      });
      histogram.push(
        `${HISTOGRAM}_bucket{le="+Inf",${labels}} ${count}`,
        `${HISTOGRAM}_sum{${labels}} ${sum}`,
        `${HISTOGRAM}_count{${labels}} ${count}`,
      );
    }
    return `${counter.join('\n')}\n\n${histogram.join('\n')}\n`;
  }
}

function escaped(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
