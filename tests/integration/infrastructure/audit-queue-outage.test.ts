import { randomUUID } from 'node:crypto';
import { Metrics } from '../../../src/adapters/observability/metrics';
import { GroupCommitAuditQueue } from '../../../src/adapters/persistence/audit/group-commit-audit-queue';
import { AuditRecord } from '../../../src/domain/audit';
import { TOKENS } from '../../../src/infrastructure/di/tokens';
import { eventually } from '../../support/replica';
import { appOnOwnPostgres } from '../../support/own-postgres-app';
import { TestApp } from '../../support/test-app';

jest.setTimeout(90_000);

/** This file stops and restarts PostgreSQL, so it has a server of its own. */
const own = appOnOwnPostgres('audit-outage', { AUDIT_FLUSH_MS: '100' });
const app = (): TestApp => own.t;

const user = randomUUID();
const event = (n: number): AuditRecord => ({
  action: 'tool.called',
  actor: { type: 'key', id: null },
  userId: user,
  keyId: null,
  target: { type: 'tool', id: 'projects' },
  occurredAt: new Date(),
  requestId: null,
  ip: null,
  details: { n },
});
const written = async () =>
  (
    await app().db.dataSource.query<{ details: { n: number } }[]>('SELECT details FROM audit_events WHERE user_id = $1 ORDER BY seq', [
      user,
    ])
  ).map((row) => row.details.n);

describe('the audit queue when PostgreSQL goes away and comes back', () => {
  it('rejects the callers while it is down, keeps their events (not dropped as refused) and writes them, in order, once it is back', async () => {
    const queue = app().container.get(GroupCommitAuditQueue);
    const metrics = app().container.get<Metrics>(TOKENS.Metrics);
    await queue.append(event(1));
    expect(await written()).toEqual([1]);

    await own.stopDatabase();
    for (let n = 2; n <= 4; n += 1) await expect(queue.append(event(n))).rejects.toMatchObject({ code: 'DATABASE.UNAVAILABLE' });
    await new Promise((r) => setTimeout(r, 500)); // several failed retries
    expect(queue.pendingCount).toBe(3);
    expect((await metrics.auditEventsDropped.get()).values.every((v) => v.value === 0)).toBe(true);

    await own.startDatabase();
    await eventually(async () => queue.pendingCount === 0, 20_000, 100);
    await queue.append(event(5));
    expect(await written()).toEqual([1, 2, 3, 4, 5]);
  });
});
