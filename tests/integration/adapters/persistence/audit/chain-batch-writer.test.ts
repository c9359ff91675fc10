import { AuditChainVerifier } from '../../../../../src/adapters/audit/audit-chain-verifier';
import { ChainBatchWriter } from '../../../../../src/adapters/persistence/audit/chain-batch-writer';
import { TypeormAuditEventReader } from '../../../../../src/adapters/persistence/audit/typeorm-audit-event-reader';
import { TypeormAuditLog } from '../../../../../src/adapters/persistence/audit/typeorm-audit-log';
import { AuditRecord } from '../../../../../src/domain/audit';
import { createTestDatabase, TestDatabase } from '../../../../support/test-database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const record = (tool: string): AuditRecord => ({
  action: 'tool.called',
  actor: { type: 'key', id: 'k' },
  userId: null,
  keyId: null,
  target: { type: 'tool', id: tool },
  occurredAt: new Date('2026-11-26T12:00:00.000Z'),
  requestId: null,
  ip: null,
  details: { tool },
});

const stored = async () =>
  await db.dataSource.query<{ seq: number; target_id: string }[]>('SELECT seq::int AS seq, target_id FROM audit_events ORDER BY seq');
const verify = () => new AuditChainVerifier(new TypeormAuditEventReader(db.dataSource.manager)).verify();

describe('ChainBatchWriter', () => {
  afterEach(() => jest.restoreAllMocks());

  it('appends after the head it left in one statement, and under the lock when another writer moved the chain', async () => {
    const transaction = jest.spyOn(db.dataSource, 'transaction');
    const sut = new ChainBatchWriter(db.dataSource);
    const other = new ChainBatchWriter(db.dataSource);

    await sut.write([record('a1'), record('a2')]);
    expect(transaction).toHaveBeenCalledTimes(1); // the head was not known yet
    await sut.write([record('a3')]);
    expect(transaction).toHaveBeenCalledTimes(1); // it was: one statement, no transaction

    // Another writer (another replica, or a key change's unit of work) moves the head.
    await db.dataSource.transaction((manager) => new TypeormAuditLog(manager).append([record('unit-of-work')]));
    await other.write([record('b1')]);
    const before = transaction.mock.calls.length;
    await sut.write([record('a4'), record('a5')]);
    expect(transaction.mock.calls.length).toBe(before + 1); // its head was stale: nothing written by the statement, then the lock
    await sut.write([record('a6')]);
    expect(transaction.mock.calls.length).toBe(before + 1);

    expect((await stored()).map((row) => row.target_id)).toEqual(['a1', 'a2', 'a3', 'unit-of-work', 'b1', 'a4', 'a5', 'a6']);
    expect((await stored()).map((row) => row.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await verify()).toEqual({ intact: true, events: 8 });
  });

  it('keeps the chain whole when two writers append at once, each batch whole and in one place', async () => {
    const writers = [new ChainBatchWriter(db.dataSource), new ChainBatchWriter(db.dataSource)];
    await Promise.all(writers.map((w, i) => w.write([record(`warm-${i}`)])));
    // Each writer has one batch in flight at a time, as the queue guarantees; the two race.
    await Promise.all(
      writers.map(async (w, i) => {
        for (let n = 0; n < 20; n++) await w.write([record(`w${i}-${n}-x`), record(`w${i}-${n}-y`)]);
      }),
    );
    const rows = await stored();
    for (let i = 0; i < 2; i++) {
      for (let n = 0; n < 20; n++) {
        const x = rows.findIndex((row) => row.target_id === `w${i}-${n}-x`);
        expect(rows[x + 1].target_id).toBe(`w${i}-${n}-y`);
      }
    }
    expect(await verify()).toEqual({ intact: true, events: rows.length });
  });
});
