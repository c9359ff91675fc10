import { randomUUID } from 'node:crypto';
import { AuditChainVerifier } from '../../src/adapters/audit/audit-chain-verifier';
import { TypeormAuditEventReader } from '../../src/adapters/persistence/audit/typeorm-audit-event-reader';
import { ServiceProcess, startService, waitForListening } from '../support/service-process';
import { serviceFixture } from '../support/service-fixture';

jest.setTimeout(90_000);

const fixture = serviceFixture('audit-sigkill');

const CONNECTIONS = 16;
/** Answers before the kill: enough that several batches have been written and more are on their way. */
const ANSWERS_BEFORE_KILL = 300;

/** Whatever the test started, killed if it failed before it could stop them. */
const started: ServiceProcess[] = [];
afterAll(() => started.forEach((service) => service.child.kill('SIGKILL')));

describe('tool-call audit events when a replica is killed (SIGKILL)', () => {
  it('are in the table for every call that got an answer, from that replica and the one beside it, and the chain still verifies', async () => {
    // The writer's settings as shipped: nothing here helps the events out before the kill. Two replicas write one chain.
    const [doomed, survivor] = await Promise.all(
      [1, 2].map(() => {
        const service = startService(fixture.env({ LOG_LEVEL: 'warn' }));
        started.push(service);
        return waitForListening(service);
      }),
    );
    const auth = { Authorization: `Bearer ${fixture.idp.token({ sub: randomUUID() })}`, 'Content-Type': 'application/json' };
    const key = (await (
      await fetch(`${doomed.baseUrl}/api/v1/api-keys`, { method: 'POST', headers: auth, body: '{"name":"k"}' })
    ).json()) as { raw_key: string };

    // Each call gets a record id of its own, which its event keeps (details.record_id): the answer and the event meet on it.
    const answered: string[] = [];
    let killed = false;
    const callTool = async (baseUrl: string, recordId: string): Promise<boolean> => {
      const res = await fetch(`${baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'X-API-Key': key.raw_key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'projects', arguments: { action: 'get', id: recordId } },
        }),
      });
      const body = (await res.json()) as { result?: unknown };
      return res.status === 200 && body.result !== undefined;
    };
    const client = async (baseUrl: string) => {
      while (!killed) {
        const recordId = randomUUID();
        const ok = await callTool(baseUrl, recordId).catch(() => false);
        if (!ok) continue;
        answered.push(recordId);
        if (answered.length >= ANSWERS_BEFORE_KILL && !killed) {
          killed = true;
          doomed.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => client((i % 2 === 0 ? doomed : survivor).baseUrl)));
    expect(await doomed.exited).toBeNull(); // killed, not exited
    survivor.child.kill('SIGTERM');
    expect(await survivor.exited).toBe(0);

    const rows: { record_id: string }[] = await fixture.db.dataSource.query(
      `SELECT details->>'record_id' AS record_id FROM audit_events WHERE action = 'tool.called'`,
    );
    const recorded = new Set(rows.map((row) => row.record_id));
    const missing = answered.filter((id) => !recorded.has(id));
    expect({ answered: answered.length, missing: missing.length }).toEqual({ answered: answered.length, missing: 0 });

    const verdict = await fixture.db.dataSource.transaction('REPEATABLE READ', (manager) =>
      new AuditChainVerifier(new TypeormAuditEventReader(manager)).verify(),
    );
    expect(verdict).toEqual({ intact: true, events: rows.length + 1 }); // and key.created
  });
});
