import { EntityManager } from 'typeorm';
import { chainHash } from '../../../../src/adapters/audit/audit-chain';
import { TypeormAuditLog } from '../../../../src/adapters/persistence/audit/typeorm-audit-log';
import { AuditRecord } from '../../../../src/domain/audit';

/** A row as the INSERT's one jsonb parameter carries it: id, seq, occurred_at, action, actor type and id, user, key, target type and id, request id, ip, details, hash. */
type InsertedRow = [string, number, string, string, string, string | null, string | null, string | null, string, string | null, string | null, string | null, unknown, string];

/** A manager that answers the head read and keeps the rows the INSERT was given. */
function makeSut() {
  const inserts: InsertedRow[][] = [];
  const manager = {
    query: async (sql: string, params?: unknown[]) => {
      if (sql.startsWith('SELECT head_seq')) return [{ head_seq: '7', head_hash: 'a'.repeat(64) }];
      if (sql.includes('INSERT INTO audit_events')) inserts.push(JSON.parse(params![0] as string) as InsertedRow[]);
      return [];
    },
  } as unknown as EntityManager;
  return { sut: new TypeormAuditLog(manager), inserts };
}

const record = (details: AuditRecord['details']): AuditRecord => ({
  action: 'tool.called', actor: { type: 'key', id: 'k' }, userId: null, keyId: null, target: { type: 'tool', id: 'projects' },
  occurredAt: new Date('2026-01-02T03:04:05.006Z'), requestId: 'r', ip: null, details,
});

describe('TypeormAuditLog: what it stores of details', () => {
  it('stores details that need nothing as they are, and chains them from the head', async () => {
    const { sut, inserts } = makeSut();
    const details = { tool: 'projects', required_scopes: ['projects:read'], outcome: 'ok', duration_ms: 1.5, nested: { a: [null, true] } };
    await sut.append([record(details)]);
    const [[row]] = inserts;
    expect(row[12]).toEqual(details);
    const [id, seq, occurredAt] = row;
    expect([seq, occurredAt]).toEqual([8, '2026-01-02T03:04:05.006Z']);
    expect(row[13]).toBe(chainHash('a'.repeat(64), { ...record(details), id, seq: 8 }));
  });

  it('cuts strings to 1024 characters and makes strings and keys well-formed, at any depth', async () => {
    const { sut, inserts } = makeSut();
    await sut.append([record({ long: 'x'.repeat(2000), deep: [{ 'k\uD800': 'a\u0000' }], fine: 'y' })]);
    expect(inserts[0][0][12]).toEqual({ long: 'x'.repeat(1024), deep: [{ 'k\uFFFD': 'a\uFFFD' }], fine: 'y' });
  });
});
