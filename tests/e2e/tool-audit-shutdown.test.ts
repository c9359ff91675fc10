import { ServiceProcess, startService, waitForListening } from '../support/service-process';
import { serviceFixture } from '../support/service-fixture';

jest.setTimeout(60_000);

const fixture = serviceFixture('audit-sigterm');

const toolEvents = async () =>
  (await fixture.db.dataSource.query(`SELECT count(*)::int AS n FROM audit_events WHERE action LIKE 'tool.%'`))[0].n as number;

let running: ServiceProcess | undefined;
afterAll(() => running?.child.kill('SIGKILL'));

describe('tool-call audit events at SIGTERM', () => {
  it('are all in the table once the process has exited, those of calls still in flight included', async () => {
    const service = await waitForListening(startService(fixture.env({ LOG_LEVEL: 'warn' })));
    running = service;
    const auth = { Authorization: `Bearer ${fixture.idp.token({ sub: crypto.randomUUID() })}`, 'Content-Type': 'application/json' };
    const key = (await (
      await fetch(`${service.baseUrl}/api/v1/api-keys`, { method: 'POST', headers: auth, body: '{"name":"k"}' })
    ).json()) as { raw_key: string };
    const callTool = async (id: number) => {
      const res = await fetch(`${service.baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'X-API-Key': key.raw_key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'projects', arguments: { action: 'list' } } }),
      });
      await res.text();
      return res.status;
    };

    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => callTool(i)));
    expect(burst.every((status) => status === 200)).toBe(true);
    // Each answer waited for its event.
    expect(await toolEvents()).toBe(burst.length);
    const inFlight = Array.from({ length: 20 }, (_, i) => callTool(100 + i).catch(() => 0));
    service.child.kill('SIGTERM');
    const late = await Promise.all(inFlight);
    expect(await service.exited).toBe(0);

    const answered = burst.length + late.filter((status) => status === 200).length;
    expect(await toolEvents()).toBe(answered);
    const seqs = (await fixture.db.dataSource.query('SELECT seq FROM audit_events ORDER BY seq')).map((r: { seq: string }) =>
      Number(r.seq),
    );
    expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
  });
});
