import { EntityManager } from 'typeorm';
import { chainHash } from '../../../../src/adapters/audit/audit-chain';
import { TypeormAuditLog } from '../../../../src/adapters/persistence/audit/typeorm-audit-log';
import { AuditRecord } from '../../../../src/domain/audit';

/** A manager that answers the head read and keeps the INSERT's parameters. */
function makeSut() {
  const inserts: unknown[][] = [];
  const manager = {
    query: async (sql: string, params?: unknown[]) => {
      if (sql.startsWith('SELECT head_seq')) return [{ head_seq: '7', head_hash: 'a'.repeat(64) }];
      if (sql.includes('INSERT INTO audit_events')) inserts.push(params!);
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
    const [params] = inserts;
    expect(JSON.parse((params[12] as string[])[0])).toEqual(details);
    const [id] = params[0] as string[];
    expect((params[13] as string[])[0]).toBe(chainHash('a'.repeat(64), { ...record(details), id, seq: 8 }));
  });

  it('cuts strings to 1024 characters and makes strings and keys well-formed, at any depth', async () => {
    const { sut, inserts } = makeSut();
    await sut.append([record({ long: 'x'.repeat(2000), deep: [{ 'k\uD800': 'a\u0000' }], fine: 'y' })]);
    expect(JSON.parse((inserts[0][12] as string[])[0])).toEqual({ long: 'x'.repeat(1024), deep: [{ 'k\uFFFD': 'a\uFFFD' }], fine: 'y' });
  });
});
