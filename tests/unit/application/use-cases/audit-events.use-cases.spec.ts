import { randomUUID } from 'node:crypto';
import { decodeCursor, encodeCursor } from '../../../../src/application/use-cases/audit-events/audit-cursor';
import { EXPORT_BATCH, ExportAuditEvents } from '../../../../src/application/use-cases/audit-events/export-audit-events.use-case';
import { ListAuditEvents, ListAuditEventsInput } from '../../../../src/application/use-cases/audit-events/list-audit-events.use-case';
import { AuditEvent } from '../../../../src/domain/audit';
import { ForbiddenError, ValidationError } from '../../../../src/domain/errors';
import { InMemoryAuditEventReader } from '../../../fakes/in-memory-audit-event-reader';
import { ActorMother } from '../../../mothers/actor.mother';
import { AUDIT_EPOCH, AuditEventMother } from '../../../mothers/audit-event.mother';
import { untyped } from '../../../support/untyped';

const alice = randomUUID();
const bob = randomUUID();
const aliceKey = randomUUID();
const at = (seconds: number) => new Date(AUDIT_EPOCH.getTime() + seconds * 1000);

/** 1 created, 2 updated (alice, aliceKey), 3 created (bob), 4 revoked (alice, aliceKey), 5 created (alice), at 0..4 s. */
function trail(): AuditEvent[] {
  const r = (overrides: Parameters<typeof AuditEventMother.record>[0]) => AuditEventMother.record(overrides);
  return AuditEventMother.chain([
    r({ userId: alice, keyId: aliceKey, occurredAt: at(0) }),
    r({ userId: alice, keyId: aliceKey, action: 'key.updated', occurredAt: at(1) }),
    r({ userId: bob, occurredAt: at(2) }),
    r({ userId: alice, keyId: aliceKey, action: 'key.revoked', occurredAt: at(3) }),
    r({ userId: alice, occurredAt: at(4) }),
  ]);
}

function makeSut(events = trail()) {
  const reader = new InMemoryAuditEventReader(events);
  return { reader, list: new ListAuditEvents(reader), exporter: new ExportAuditEvents(reader) };
}

const seqs = (events: AuditEvent[]) => events.map((e) => e.seq);

async function fieldsOf(promise: Promise<unknown>): Promise<string[]> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return (error as ValidationError).errors.map((e) => e.field);
}

describe('ListAuditEvents', () => {
  const admin = ActorMother.admin();

  it('lists every event newest first for an admin, with no next page when all fit', async () => {
    const page = await makeSut().list.execute({ actor: admin });
    expect(seqs(page.events)).toEqual([5, 4, 3, 2, 1]);
    expect(page.nextCursor).toBeNull();
  });

  it.each<[string, Partial<ListAuditEventsInput>, number[]]>([
    ['action', { action: 'key.updated' }, [2]],
    ['key_id', { keyId: aliceKey }, [4, 2, 1]],
    ['user_id', { userId: bob }, [3]],
    ['since (inclusive)', { since: at(3).toISOString() }, [5, 4]],
    ['until (inclusive)', { until: at(1).toISOString() }, [2, 1]],
    ['since and until together', { since: at(1).toISOString(), until: at(3) }, [4, 3, 2]],
    ['several filters at once', { userId: alice, action: 'key.created' }, [5, 1]],
  ])('filters by %s', async (_name, filter, expected) => {
    expect(seqs((await makeSut().list.execute({ actor: admin, ...filter })).events)).toEqual(expected);
  });

  it('pages by cursor until it is null, each event once and in order', async () => {
    const { list } = makeSut(AuditEventMother.many(7));
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await list.execute({ actor: admin, limit: untyped('3'), cursor });
      seen.push(...seqs(page.events));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
  });

  it('gives no next cursor when the last page is exactly full', async () => {
    const page = await makeSut(AuditEventMother.many(3)).list.execute({ actor: admin, limit: 3 });
    expect(seqs(page.events)).toEqual([3, 2, 1]);
    expect(page.nextCursor).toBeNull();
  });

  it("shows a non-admin only their own events, and refuses another user's with 403", async () => {
    const { list } = makeSut();
    const page = await list.execute({ actor: ActorMother.user(alice) });
    expect(seqs(page.events)).toEqual([5, 4, 2, 1]);
    expect(seqs((await list.execute({ actor: ActorMother.user(alice), userId: alice.toUpperCase() })).events)).toEqual([5, 4, 2, 1]);
    await expect(list.execute({ actor: ActorMother.user(alice), userId: bob })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown action', { action: 'key.exploded' }, 'action'],
    ['a repeated parameter', { action: ['key.created', 'key.updated'] }, 'action'],
    ['a bad key_id', { keyId: 'nope' }, 'key_id'],
    ['a bad user_id', { userId: '' }, 'user_id'],
    ['a timestamp without a zone', { since: '2026-06-01T12:00:00' }, 'since'],
    ['a day that does not exist', { until: '2026-02-30T00:00:00Z' }, 'until'],
    ['since after until', { since: at(2).toISOString(), until: at(1).toISOString() }, 'since'],
    ['limit 0', { limit: '0' }, 'limit'],
    ['limit 1001', { limit: 1001 }, 'limit'],
    ['a fractional limit', { limit: '1.5' }, 'limit'],
    ['a limit that is not a number', { limit: 'ten' }, 'limit'],
    ['a repeated limit', { limit: ['1', '2'] }, 'limit'],
    ['a made-up cursor', { cursor: 'abc' }, 'cursor'],
    ['a cursor of seq 0', { cursor: Buffer.from('seq:0').toString('base64url') }, 'cursor'],
    ['a padded cursor', { cursor: `${encodeCursor(12)}=` }, 'cursor'],
    ['a long cursor', { cursor: 'A'.repeat(1000) }, 'cursor'],
  ])('refuses %s with a 400 naming the field, before reading anything', async (_name, input, field) => {
    const { list, reader } = makeSut();
    expect(await fieldsOf(list.execute({ actor: admin, ...untyped<object>(input) }))).toEqual([field]);
    expect(reader.reads).toBe(0);
  });

  it('reports every bad field at once, and a 400 before a 403', async () => {
    const { list } = makeSut();
    expect(
      await fieldsOf(list.execute({ actor: ActorMother.user(), userId: bob, action: untyped('x'), limit: untyped('0'), cursor: 'x' })),
    ).toEqual(['action', 'limit', 'cursor']);
  });
});

describe('audit cursors', () => {
  it.each([1, 42, Number.MAX_SAFE_INTEGER])('round-trips seq %d', (seq) => {
    expect(decodeCursor(encodeCursor(seq))).toBe(seq);
  });

  it('refuses a cursor that does not re-encode to itself', () => {
    expect(() => decodeCursor(Buffer.from('seq:007').toString('base64url'))).toThrow(ValidationError);
    expect(() => decodeCursor(Buffer.from('12').toString('base64url'))).toThrow(ValidationError);
  });
});

describe('ExportAuditEvents', () => {
  const collect = async (batches: AsyncIterable<AuditEvent[]>) => {
    const out: AuditEvent[][] = [];
    for await (const batch of batches) out.push(batch);
    return out;
  };

  it('yields every matching event oldest first, in batches of EXPORT_BATCH', async () => {
    const { exporter } = makeSut(AuditEventMother.many(EXPORT_BATCH * 2 + 3));
    const batches = await collect(await exporter.execute({ actor: ActorMother.admin() }));
    expect(batches.map((b) => b.length)).toEqual([EXPORT_BATCH, EXPORT_BATCH, 3]);
    expect(batches.flat().map((e) => e.seq)).toEqual(Array.from({ length: EXPORT_BATCH * 2 + 3 }, (_, i) => i + 1));
  });

  it('applies the filter and the owner rule, and ends at the head as it was when the export began', async () => {
    const { exporter, reader } = makeSut();
    const batches = await exporter.execute({ actor: ActorMother.user(alice), action: 'key.created' });
    reader.events.push(...AuditEventMother.chain([AuditEventMother.record({ userId: alice })], 6, reader.events[4].hash));
    expect((await collect(batches)).flat().map((e) => e.seq)).toEqual([1, 5]);
  });

  it('refuses a bad filter or another user before reading anything', async () => {
    const { exporter, reader } = makeSut();
    expect(await fieldsOf(exporter.execute({ actor: ActorMother.admin(), since: untyped(5) }))).toEqual(['since']);
    await expect(exporter.execute({ actor: ActorMother.user(alice), userId: bob })).rejects.toBeInstanceOf(ForbiddenError);
    expect(reader.reads).toBe(0);
  });
});
