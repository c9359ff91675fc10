import { Metrics } from '../../../../src/adapters/observability/metrics';

const exposition = async (metrics: Metrics) => (await metrics.exposition()).body;

describe('Metrics', () => {
  it('counts responses and fills the latency buckets cumulatively, per method, route and status', async () => {
    const metrics = new Metrics();
    metrics.recordResponse('POST', '/mcp', 200, 0.0007);
    metrics.recordResponse('POST', '/mcp', 200, 0.004);
    metrics.recordResponse('POST', '/mcp', 200, 9);
    metrics.recordResponse('POST', '/mcp', 429, 0.002);
    const text = await exposition(metrics);
    expect(text).toContain('# TYPE keygate_http_requests_total counter');
    expect(text).toContain('keygate_http_requests_total{method="POST",route="/mcp",status="200"} 3\n');
    expect(text).toContain('keygate_http_requests_total{method="POST",route="/mcp",status="429"} 1\n');
    expect(text).toContain('# TYPE keygate_http_request_duration_seconds histogram');
    expect(text).toContain('keygate_http_request_duration_seconds_bucket{le="0.001",method="POST",route="/mcp",status="200"} 1\n');
    expect(text).toContain('keygate_http_request_duration_seconds_bucket{le="0.0025",method="POST",route="/mcp",status="200"} 1\n');
    expect(text).toContain('keygate_http_request_duration_seconds_bucket{le="0.005",method="POST",route="/mcp",status="200"} 2\n');
    expect(text).toContain('keygate_http_request_duration_seconds_bucket{le="5",method="POST",route="/mcp",status="200"} 2\n');
    expect(text).toContain('keygate_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/mcp",status="200"} 3\n');
    expect(text).toContain('keygate_http_request_duration_seconds_count{method="POST",route="/mcp",status="200"} 3\n');
    expect(text).toMatch(/keygate_http_request_duration_seconds_sum\{method="POST",route="\/mcp",status="200"\} 9\.004/);
  });

  it('puts a bound value in its own bucket (le is "less or equal")', async () => {
    const metrics = new Metrics();
    metrics.recordResponse('GET', '/health', 200, 0.005);
    expect(await exposition(metrics)).toContain(
      'keygate_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/health",status="200"} 1\n',
    );
  });

  it('escapes label values', async () => {
    const metrics = new Metrics();
    metrics.recordResponse('GET', 'a"b\\c', 404, 0.001);
    expect(await exposition(metrics)).toContain('keygate_http_requests_total{method="GET",route="a\\"b\\\\c",status="404"} 1\n');
  });

  it('shows every key validation outcome and cache result from the start, then counts them', async () => {
    const metrics = new Metrics();
    expect(await exposition(metrics)).toContain('keygate_key_validations_total{outcome="error"} 0\n');
    expect(await exposition(metrics)).toContain('keygate_key_cache_lookups_total{result="miss"} 0\n');
    metrics.recordKeyValidation('valid');
    metrics.recordKeyValidation('valid');
    metrics.keyCacheLookups.inc('hit');
    const text = await exposition(metrics);
    expect(text).toContain('keygate_key_validations_total{outcome="valid"} 2\n');
    expect(text).toContain('keygate_key_validations_total{outcome="invalid"} 0\n');
    expect(text).toContain('keygate_key_cache_lookups_total{result="hit"} 1\n');
    // Read twice, still the running total (collect copies, it does not add).
    expect(await exposition(metrics)).toContain('keygate_key_validations_total{outcome="valid"} 2\n');
  });

  it('keeps the other metrics in the same text, in the Prometheus format', async () => {
    const metrics = new Metrics();
    metrics.rateLimited.inc();
    metrics.recordResponse('GET', '/health', 200, 0.001);
    const text = await exposition(metrics);
    expect(text).toContain('keygate_rate_limited_total 1\n');
    expect(text).not.toMatch(/\n\n\n/);
    expect(text.endsWith('\n')).toBe(true);
  });
});
