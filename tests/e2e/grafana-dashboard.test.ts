import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DevTokenIssuer } from '../../src/adapters/auth/dev-token-issuer';
import { exportedNames, metricNamesOf } from '../support/promql-metric-names';
import { ROOT, ServiceProcess, startService, waitForListening } from '../support/service-process';
import { createTestDatabase, TestDatabase } from '../support/test-database';

jest.setTimeout(60_000);

interface Target {
  expr?: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
}
interface Dashboard {
  __inputs: { name: string; pluginId: string }[];
  panels: Panel[];
  templating: { list: { name: string; type: string; query: unknown }[] };
}

const dashboard = JSON.parse(readFileSync(path.join(ROOT, 'deploy', 'grafana', 'keygate-dashboard.json'), 'utf8')) as Dashboard;
const queryPanels = dashboard.panels.filter((p) => p.type !== 'row');
const exprs = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr ?? '' })));

/** Every series the dashboard reads: its panels' queries and its template variables' label_values(). */
function dashboardNames(): Map<string, string> {
  const names = new Map<string, string>();
  for (const { panel, expr } of exprs) for (const name of metricNamesOf(expr)) names.set(name, panel);
  for (const variable of dashboard.templating.list) {
    const query = typeof variable.query === 'string' ? variable.query : ((variable.query as { query?: string } | undefined)?.query ?? '');
    const metric = /label_values\(\s*([\w:]+)\s*,/.exec(query)?.[1];
    if (metric) names.set(metric, `variable ${variable.name}`);
  }
  return names;
}

describe('reading metric names out of PromQL', () => {
  it('finds the series and skips functions, labels, groupings, strings, ranges and variables', () => {
    expect(
      metricNamesOf(
        'histogram_quantile(0.95, sum by (le, route) (rate(keygate_a_bucket{instance=~"$instance",x="y z"}[$__rate_interval]))) / on(route) keygate_b offset 5m',
      ).sort(),
    ).toEqual(['keygate_a_bucket', 'keygate_b']);
    expect(metricNamesOf('sum(rate(up[5m])) and bool 1e3 > process_cpu_seconds_total')).toEqual(['up', 'process_cpu_seconds_total']);
  });

  it('reads the sample names of an exposition, histogram suffixes included', () => {
    const text = '# HELP h x\n# TYPE h histogram\nh_bucket{le="1"} 0\nh_sum 0\nh_count 0\nc 3\n';
    expect([...exportedNames(text)].sort()).toEqual(['c', 'h_bucket', 'h_count', 'h_sum']);
  });
});

describe('deploy/grafana/keygate-dashboard.json', () => {
  it('takes its Prometheus data source from the DS_PROMETHEUS variable in every panel and query', () => {
    expect(dashboard.__inputs).toEqual([expect.objectContaining({ name: 'DS_PROMETHEUS', pluginId: 'prometheus' })]);
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', query: 'prometheus' }),
    );
    expect(queryPanels.length).toBeGreaterThan(10);
    for (const panel of queryPanels) {
      expect({ panel: panel.title, ds: panel.datasource }).toEqual({
        panel: panel.title,
        ds: { type: 'prometheus', uid: '${DS_PROMETHEUS}' },
      });
      for (const target of panel.targets ?? []) expect(target.datasource?.uid).toBe('${DS_PROMETHEUS}');
    }
    expect(exprs.every((e) => e.expr.length > 0)).toBe(true);
  });

  it('covers requests, keys, tools, limits, audit and the process', () => {
    const names = [...dashboardNames().keys()];
    for (const wanted of [
      'keygate_http_requests_total',
      'keygate_http_request_duration_seconds_bucket',
      'keygate_key_validations_total',
      'keygate_key_cache_lookups_total',
      'keygate_tool_calls_total',
      'keygate_tool_call_duration_seconds_bucket',
      'keygate_rate_limited_total',
      'keygate_quota_exhausted_total',
      'keygate_audit_events_written_total',
      'keygate_audit_events_dropped_total',
      'keygate_process_resident_memory_bytes',
    ]) {
      expect(names).toContain(wanted);
    }
  });

  describe('against a running keygate', () => {
    let db: TestDatabase;
    let dataDir: string;
    let service: ServiceProcess;

    beforeAll(async () => {
      db = await createTestDatabase();
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'keygate-dashboard-'));
      service = await waitForListening(startService({ DATABASE_URL: db.url, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }));
    });

    afterAll(async () => {
      service?.child.kill('SIGTERM');
      await service?.exited;
      await db?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('names only series that GET /metrics exports after tool calls', async () => {
      const token = DevTokenIssuer.loadOrCreate(dataDir).mint({ sub: randomUUID(), admin: false, ttlSeconds: 600 });
      const created = await fetch(`${service.baseUrl}/api/v1/api-keys`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'dashboard', scopes: ['projects:read'] }),
      });
      expect(created.status).toBe(201);
      const { raw_key: raw } = (await created.json()) as { raw_key: string };
      const client = new Client({ name: 'dashboard-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${service.baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': raw } } }),
      );
      try {
        expect((await client.callTool({ name: 'projects', arguments: { action: 'list' } })).isError).toBeFalsy();
        // Without chat:read: a denied call, counted too.
        await expect(client.callTool({ name: 'chat', arguments: {} })).rejects.toThrow(/Insufficient scope/);
      } finally {
        await client.close();
      }

      const metrics = await fetch(`${service.baseUrl}/metrics`);
      expect(metrics.status).toBe(200);
      const exported = exportedNames(await metrics.text());
      const missing = [...dashboardNames()].filter(([name]) => !exported.has(name)).map(([name, panel]) => `${name} (${panel})`);
      expect(missing).toEqual([]);
    });
  });
});
