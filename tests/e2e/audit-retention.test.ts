import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AuditRecord } from '../../src/domain/audit';
import { AuditRetention } from '../../src/adapters/persistence/audit/audit-retention';
import { TypeormAuditLog } from '../../src/adapters/persistence/audit/typeorm-audit-log';
import { Lifecycle } from '../../src/infrastructure/di/lifecycle';
import { FixedClock } from '../fakes/fixed-clock';
import { AuditEventMother } from '../mothers/audit-event.mother';
import { auditVerify, firstUnchained, tamper } from '../support/audit-trail';
import { startReplica } from '../support/replica';
import { startTestApp, TestApp } from '../support/test-app';

const DAY = 86_400_000;
const now = Date.now();
/** The app's clock, moved back in time to write old events through the real endpoints. */
const clock = new FixedClock(new Date(now - 500 * DAY));
const alice = randomUUID();
let t: TestApp;

const bearer = () => `Bearer ${t.userToken(alice)}`;
const createKey = (name: string) =>
  request(t.app)
    .post('/api/v1/api-keys')
    .set('Authorization', bearer())
    .send({ name })
    .expect(201)
    .then((r) => r.body.id as string);
const seqs = async () =>
  (await t.db.dataSource.query('SELECT seq FROM audit_events ORDER BY seq')).map((r: { seq: string }) => Number(r.seq));
const chainRow = async () => (await t.db.dataSource.query('SELECT head_seq::int, anchor_seq::int, anchor_hash FROM audit_chain'))[0];
const moveClockTo = (daysAgo: number) => clock.advance(now - daysAgo * DAY - clock.now().getTime());

beforeAll(async () => {
  t = await startTestApp({ AUDIT_RETENTION_DAYS: '30' }, clock);
});
afterAll(() => t.close());

describe('audit retention (AUDIT_RETENTION_DAYS)', () => {
  it('prunes at start and on demand, leaves a chain that verifies from its new anchor, and still shows tampering', async () => {
    await createKey('a'); // seq 1, 500 days ago
    await createKey('b'); // seq 2, 500 days ago
    moveClockTo(40);
    await createKey('c'); // seq 3, 40 days ago: kept by the default 400 days, not by 30
    moveClockTo(20);
    const kept = await createKey('d'); // seq 4
    moveClockTo(0);
    await request(t.app).patch(`/api/v1/api-keys/${kept}`).set('Authorization', bearer()).send({ name: 'd2' }).expect(200); // seq 5
    const [{ hash: secondHash }] = await t.db.dataSource.query('SELECT hash FROM audit_events WHERE seq = 2');
    expect(await auditVerify(t.db.url)).toMatchObject({ code: 0, stdout: 'audit chain intact: 5 events\n' });

    // Another replica starting with the default (400 days) prunes what is older as its Lifecycle starts.
    const replica = await startReplica(t.db.url);
    await replica.close();
    expect(await seqs()).toEqual([3, 4, 5]);
    expect(await chainRow()).toEqual({ head_seq: 5, anchor_seq: 2, anchor_hash: secondHash });
    expect(await auditVerify(t.db.url)).toMatchObject({ code: 0, stdout: 'audit chain intact: 3 events\n' });

    // This app's own setting, 30 days, through the same step its Lifecycle runs hourly.
    expect(await t.container.get(AuditRetention).runOnce()).toBe(1);
    expect(await seqs()).toEqual([4, 5]);
    expect(await t.container.get(AuditRetention).runOnce()).toBe(0);
    expect(await auditVerify(t.db.url)).toMatchObject({ code: 0, stdout: 'audit chain intact: 2 events\n' });

    // The API and the export show what is left, and an outsider can chain it from the anchor.
    const admin = `Bearer ${t.adminToken()}`;
    const listed = await request(t.app).get('/api/v1/audit-events').set('Authorization', admin).expect(200);
    expect(listed.body.events.map((e: { seq: number }) => e.seq)).toEqual([5, 4]);
    const { anchor_hash: anchor } = await chainRow();
    expect(firstUnchained([...listed.body.events].reverse(), anchor.trim())).toBeNull();

    // Writing goes on after pruning, and the chain still verifies.
    await createKey('e'); // seq 6
    expect(await auditVerify(t.db.url)).toMatchObject({ code: 0, stdout: 'audit chain intact: 3 events\n' });

    await tamper(
      (sql) => t.db.dataSource.query(sql),
      "UPDATE audit_events SET occurred_at = occurred_at + interval '1 second' WHERE seq = 5",
    );
    expect(await auditVerify(t.db.url)).toEqual({ code: 1, stdout: 'audit chain broken at seq 5\n', stderr: '' });
  }, 60_000);

  it('is a step of the Lifecycle, stopped before the pool closes', () => {
    const names = t.container
      .get(Lifecycle)
      .stopSteps()
      .map((s) => s.name);
    expect(names.indexOf('audit retention')).toBeGreaterThanOrEqual(0);
    expect(names.indexOf('audit retention')).toBeLessThan(names.indexOf('database pool'));
  });

  it('refuses to delete rows outside the retention function', async () => {
    await expect(t.db.dataSource.query('DELETE FROM audit_events')).rejects.toThrow(/append-only/);
    await expect(t.db.dataSource.query('TRUNCATE audit_events')).rejects.toThrow(/append-only/);
  });
});

describe('the chain over text PostgreSQL stores otherwise', () => {
  it('verifies events whose every text field held lone surrogates, NUL, line separators, quotes and long strings', async () => {
    const db = t.db.dataSource;
    // A chain of its own: the first test leaves one it tampered with.
    await tamper((sql) => db.query(sql), 'DELETE FROM audit_events');
    await db.query("UPDATE audit_chain SET head_seq = 0, head_hash = repeat('0', 64), anchor_seq = 0, anchor_hash = repeat('0', 64)");
    const odd = 'q"\\\n\u2028é😀\uDC00\u0000\uD800x';
    const records: AuditRecord[] = [
      AuditEventMother.record({
        userId: alice,
        requestId: odd,
        ip: odd,
        actor: { type: 'user', id: odd },
        target: { type: `t${odd}`, id: odd.repeat(200) },
        details: { [odd]: [odd, { b: odd, a: -0, n: 1e21, f: 1.5e-7 }], long: 'y'.repeat(1500) },
      }),
      AuditEventMother.record({ userId: alice, occurredAt: new Date(now + 0.9) }),
    ];
    await db.transaction((manager) => new TypeormAuditLog(manager).append(records));
    expect(await auditVerify(t.db.url)).toEqual({ code: 0, stdout: 'audit chain intact: 2 events\n', stderr: '' });
  });
});

describe('audit retention, verification and export over more events than one batch', () => {
  it('prunes hundreds of old events in one run; the rest verifies and exports whole, in batches of 500', async () => {
    const db = t.db.dataSource;
    await tamper((sql) => db.query(sql), 'DELETE FROM audit_events');
    await db.query("UPDATE audit_chain SET head_seq = 0, head_hash = repeat('0', 64), anchor_seq = 0, anchor_hash = repeat('0', 64)");
    const old = now - 100 * DAY;
    // Through the real writer, as the unit of work appends them.
    const records: AuditRecord[] = Array.from({ length: 1400 }, (_, i) =>
      AuditEventMother.record({ userId: alice, occurredAt: new Date((i < 300 ? old : now) + i) }),
    );
    await db.transaction((manager) => new TypeormAuditLog(manager).append(records));
    expect(await t.container.get(AuditRetention).runOnce()).toBe(300);
    expect(await auditVerify(t.db.url)).toMatchObject({ code: 0, stdout: 'audit chain intact: 1100 events\n' });

    const res = await request(t.app)
      .get('/api/v1/audit-events')
      .set('Authorization', bearer())
      .set('Accept', 'application/x-ndjson')
      .buffer(true)
      .parse((stream, done) => {
        let body = '';
        stream.on('data', (chunk: Buffer) => (body += chunk.toString()));
        stream.on('end', () => done(null, body));
      })
      .expect(200);
    const lines = (res.body as string)
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((e) => e.seq)).toEqual(Array.from({ length: 1100 }, (_, i) => 301 + i));
    expect(firstUnchained(lines, (await chainRow()).anchor_hash.trim())).toBeNull();
  }, 30_000);
});
