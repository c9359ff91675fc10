import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Metrics } from '../../../src/adapters/observability/metrics';
import { BatchingAuditQueue } from '../../../src/adapters/persistence/audit/batching-audit-queue';
import { AuditRecord } from '../../../src/domain/audit';
import { LocalPostgres } from '../../../src/infrastructure/database/local-postgres';
import { TOKENS } from '../../../src/infrastructure/di/tokens';
import { eventually } from '../../support/replica';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(90_000);

/** This file stops and restarts PostgreSQL, so it has a server of its own. */
let dir: string;
let server: LocalPostgres;
let port: number;
let t: TestApp;
const sharedUrl = process.env.TEST_DATABASE_URL;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'keygate-audit-outage-'));
  server = await LocalPostgres.start({ dir, throwaway: false });
  port = Number(new URL(server.url).port);
  process.env.TEST_DATABASE_URL = server.url;
  t = await startTestApp({ AUDIT_FLUSH_MS: '100' });
});
afterAll(async () => {
  await t.close().catch(() => undefined);
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  process.env.TEST_DATABASE_URL = sharedUrl;
});

const user = randomUUID();
const event = (n: number): AuditRecord => ({
  action: 'tool.called', actor: { type: 'key', id: null }, userId: user, keyId: null, target: { type: 'tool', id: 'projects' },
  occurredAt: new Date(), requestId: null, ip: null, details: { n },
});
const written = async () =>
  ((await t.db.dataSource.query('SELECT details FROM audit_events WHERE user_id = $1 ORDER BY seq', [user])) as { details: { n: number } }[])
    .map((row) => row.details.n);

describe('the audit queue when PostgreSQL goes away and comes back', () => {
  it('keeps the events while it is down (not dropped as refused) and writes them, in order, once it is back', async () => {
    const queue = t.container.get(BatchingAuditQueue);
    const metrics = t.container.get<Metrics>(TOKENS.Metrics);
    queue.enqueue(event(1));
    await eventually(async () => (await written()).length === 1, 5000, 20);

    await server.stop();
    for (let n = 2; n <= 4; n += 1) queue.enqueue(event(n));
    await new Promise((r) => setTimeout(r, 1000)); // several failed ticks
    expect(queue.pendingCount).toBe(3);
    expect((await metrics.auditEventsDropped.get()).values.every((v) => v.value === 0)).toBe(true);

    server = await LocalPostgres.start({ dir, port, throwaway: false });
    queue.enqueue(event(5));
    await eventually(async () => (await written().catch(() => [])).length === 5, 20_000, 100);
    expect(await written()).toEqual([1, 2, 3, 4, 5]);
    expect(queue.pendingCount).toBe(0);
  });
});
