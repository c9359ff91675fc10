import { AuditChainVerifier } from '../../../../src/adapters/audit/audit-chain-verifier';
import { AuditEvent } from '../../../../src/domain/audit';
import { InMemoryAuditEventReader } from '../../../fakes/in-memory-audit-event-reader';
import { AuditEventMother } from '../../../mothers/audit-event.mother';

/** The trail as stored, with audit_chain's head at its last event and the anchor at genesis. */
function stored(events: AuditEvent[]): InMemoryAuditEventReader {
  const last = events[events.length - 1];
  return new InMemoryAuditEventReader([...events], { anchorSeq: 0, anchorHash: '0'.repeat(64), headSeq: last.seq, headHash: last.hash });
}

const verify = (reader: InMemoryAuditEventReader, batchSize = 3) => new AuditChainVerifier(reader, batchSize).verify();

describe('AuditChainVerifier', () => {
  it('finds an untouched chain intact and counts its events, across batch boundaries', async () => {
    const reader = stored(AuditEventMother.many(10));
    expect(await verify(reader)).toEqual({ intact: true, events: 10 });
    expect(reader.reads).toBe(4); // 3 + 3 + 3 + 1: never the whole trail at once
  });

  it('finds an empty trail intact', async () => {
    expect(await verify(new InMemoryAuditEventReader())).toEqual({ intact: true, events: 0 });
  });

  it('breaks at an event whose details were altered', async () => {
    const reader = stored(AuditEventMother.many(6));
    reader.events[3] = { ...reader.events[3], details: { name: 'forged' } };
    expect(await verify(reader)).toEqual({ intact: false, brokenAtSeq: 4 });
  });

  it('breaks at an event whose stored hash was replaced, even when the content is untouched', async () => {
    const reader = stored(AuditEventMother.many(6));
    reader.events[1] = { ...reader.events[1], hash: 'f'.repeat(64) };
    expect(await verify(reader)).toEqual({ intact: false, brokenAtSeq: 2 });
  });

  it('breaks at the first missing seq when a middle event was deleted', async () => {
    const reader = stored(AuditEventMother.many(6));
    reader.events.splice(2, 1);
    expect(await verify(reader)).toEqual({ intact: false, brokenAtSeq: 3 });
  });

  it('breaks where two events were swapped', async () => {
    const reader = stored(AuditEventMother.many(6));
    const [a, b] = [reader.events[2], reader.events[3]];
    reader.events[2] = { ...b, seq: a.seq };
    reader.events[3] = { ...a, seq: b.seq };
    expect(await verify(reader)).toEqual({ intact: false, brokenAtSeq: 3 });
  });

  it('breaks at the first deleted seq when the tail was deleted, though what is left chains', async () => {
    const reader = stored(AuditEventMother.many(6));
    reader.events.splice(4);
    expect(await verify(reader)).toEqual({ intact: false, brokenAtSeq: 5 });
  });

  it('breaks past the head when a row was slipped in after it', async () => {
    const events = AuditEventMother.many(5);
    const reader = stored(events.slice(0, 4));
    reader.events.push(events[4]);
    expect(await verify(reader)).toEqual({ intact: false, brokenAtSeq: 5 });
  });

  it('breaks at the head when its hash does not match the last event', async () => {
    const reader = stored(AuditEventMother.many(4));
    reader.state = { ...reader.state!, headHash: 'a'.repeat(64) };
    expect(await verify(reader)).toEqual({ intact: false, brokenAtSeq: 4 });
  });

  it('starts at the anchor retention left, and still breaks on the events after it', async () => {
    const events = AuditEventMother.many(8);
    const pruned = stored(events);
    pruned.events.splice(0, 5);
    pruned.state = { ...pruned.state!, anchorSeq: 5, anchorHash: events[4].hash };
    expect(await verify(pruned)).toEqual({ intact: true, events: 3 });

    pruned.events[1] = { ...pruned.events[1], details: { name: 'forged' } };
    expect(await verify(pruned)).toEqual({ intact: false, brokenAtSeq: 7 });
  });

  it("breaks at the first event after the anchor when the anchor hash is not the pruned event's", async () => {
    const events = AuditEventMother.many(4);
    const reader = stored(events.slice(2));
    reader.state = { ...reader.state!, anchorSeq: 2, anchorHash: events[0].hash };
    expect(await verify(reader)).toEqual({ intact: false, brokenAtSeq: 3 });
  });

  it('finds a trail pruned to nothing intact when the head is the anchor', async () => {
    const events = AuditEventMother.many(3);
    const reader = new InMemoryAuditEventReader([], { anchorSeq: 3, anchorHash: events[2].hash, headSeq: 3, headHash: events[2].hash });
    expect(await verify(reader)).toEqual({ intact: true, events: 0 });
  });
});
