import { EntityManager } from 'typeorm';
import { chainHash, eventCanonicalJson } from '../../../../src/adapters/audit/audit-chain';
import { storedEventJson, TypeormAuditLog } from '../../../../src/adapters/persistence/audit/typeorm-audit-log';
import { AuditEvent, AuditRecord } from '../../../../src/domain/audit';

/** A row as the INSERT's one jsonb parameter carries it: the event's canonical JSON, and its hash. */
type InsertedRow = [{ id: string; seq: number; occurred_at: string; details: unknown }, string];

/** A manager that answers the head read and keeps what the INSERT and the head's UPDATE were given. */
function makeSut() {
  const inserts: { text: string; rows: InsertedRow[] }[] = [];
  const heads: unknown[][] = [];
  const manager = {
    query: async (sql: string, params?: unknown[]) => {
      if (sql.startsWith('SELECT head_seq')) return [{ head_seq: '7', head_hash: 'a'.repeat(64) }];
      if (sql.includes('INSERT INTO audit_events'))
        inserts.push({ text: params![0] as string, rows: JSON.parse(params![0] as string) as InsertedRow[] });
      if (sql.startsWith('UPDATE audit_chain')) heads.push(params!);
      return [];
    },
  } as unknown as EntityManager;
  return { sut: new TypeormAuditLog(manager), inserts, heads };
}

const record = (details: AuditRecord['details'], extra: Partial<AuditRecord> = {}): AuditRecord => ({
  action: 'tool.called',
  actor: { type: 'key', id: 'k' },
  userId: null,
  keyId: null,
  target: { type: 'tool', id: 'projects' },
  occurredAt: new Date('2026-01-02T03:04:05.006Z'),
  requestId: 'r',
  ip: null,
  details,
  ...extra,
});

describe('TypeormAuditLog: what it stores of details', () => {
  it('stores details that need nothing as they are, and chains each event from the one before', async () => {
    const { sut, inserts, heads } = makeSut();
    const details = { tool: 'projects', required_scopes: ['projects:read'], outcome: 'ok', duration_ms: 1.5, nested: { a: [null, true] } };
    await sut.append([record(details), record({ n: 2 })]);
    const [[first, firstHash], [second, secondHash]] = inserts[0].rows;
    expect(first.details).toEqual(details);
    expect([first.seq, first.occurred_at, second.seq]).toEqual([8, '2026-01-02T03:04:05.006Z', 9]);
    expect(firstHash).toBe(chainHash('a'.repeat(64), { ...record(details), id: first.id, seq: 8 }));
    expect(secondHash).toBe(chainHash(firstHash, { ...record({ n: 2 }), id: second.id, seq: 9 }));
    expect(heads).toEqual([[9, secondHash]]);
  });

  it('cuts strings to 1024 characters and makes strings and keys well-formed, at any depth', async () => {
    const { sut, inserts } = makeSut();
    await sut.append([record({ long: 'x'.repeat(2000), deep: [{ 'k\uD800': 'a\u0000' }], fine: 'y' })]);
    expect(inserts[0].rows[0][0].details).toEqual({ long: 'x'.repeat(1024), deep: [{ 'k\uFFFD': 'a\uFFFD' }], fine: 'y' });
  });
});

describe('storedEventJson', () => {
  const id = '9d1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b';
  const odd = 'q"\\\n\u2028é😀\uDC00\u0000';
  /** `odd` as PostgreSQL gives it back: the lone surrogate and the NUL are U+FFFD. */
  const stored = 'q"\\\n\u2028é😀\uFFFD\uFFFD';

  it.each<[string, AuditRecord, Omit<AuditEvent, 'hash'>]>([
    [
      'a tool call, kept as it is',
      record({ tool: 'projects', outcome: 'ok', duration_ms: 0.25, required_scopes: ['projects:read'] }),
      { ...record({ tool: 'projects', outcome: 'ok', duration_ms: 0.25, required_scopes: ['projects:read'] }), id, seq: 42 },
    ],
    [
      'nulls everywhere they may be',
      record({}, { actor: { type: 'system', id: null }, target: { type: 'key', id: null }, requestId: null, ip: null }),
      { ...record({}, { actor: { type: 'system', id: null }, target: { type: 'key', id: null }, requestId: null, ip: null }), id, seq: 42 },
    ],
    [
      'text cut to 1024 and made well-formed in every field, details keys included',
      record(
        { [odd]: [odd, { b: odd, a: 1 }], long: 'y'.repeat(1500) },
        {
          actor: { type: 'user', id: odd },
          target: { type: `t${odd}`, id: 'i'.repeat(3000) },
          requestId: odd,
          ip: odd,
          occurredAt: new Date(1767323045006.9),
        },
      ),
      {
        ...record(
          { [stored]: [stored, { b: stored, a: 1 }], long: 'y'.repeat(1024) },
          {
            actor: { type: 'user', id: stored },
            target: { type: `t${stored}`, id: 'i'.repeat(1024) },
            requestId: stored,
            ip: stored,
            occurredAt: new Date(1767323045006),
          },
        ),
        id,
        seq: 42,
      },
    ],
  ])('is the canonical JSON of the event as it reads back: %s', (_name, r, readBack) => {
    expect(storedEventJson(r, id, 42)).toBe(eventCanonicalJson(readBack));
  });
});
