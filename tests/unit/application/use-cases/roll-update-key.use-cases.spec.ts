import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, ValidationError } from '../../../../src/domain/errors';
import { ActorMother } from '../../../mothers/actor.mother';
import { makeKeyService } from '../../../support/key-service';
import { untyped } from '../../../support/untyped';

async function setup(expiresInMs?: number) {
  const service = makeKeyService();
  const owner = ActorMother.user();
  const expiresAt = expiresInMs === undefined ? null : new Date(service.clock.now().getTime() + expiresInMs);
  const { key, rawKey } = await service.createKey.execute({ actor: owner, name: 'ci', scopes: ['chat:read'], expiresAt });
  return { ...service, owner, key, rawKey };
}

describe('RollKey', () => {
  it('revokes the old key at once without a grace period, and the new key validates', async () => {
    const { rollKey, validateKey, owner, key, rawKey } = await setup();
    const rolled = await rollKey.execute({ actor: owner, id: key.id });
    expect(rolled.replaces).toBe(key.id);
    expect(rolled.key).toMatchObject({ name: 'ci', userId: key.userId, expiresAt: null });
    expect(rolled.key.scopes.toArray()).toEqual(['chat:read']);
    await expect(validateKey.execute({ rawKey })).rejects.toThrow();
    await expect(validateKey.execute({ rawKey: rolled.rawKey })).resolves.toBeDefined();
  });

  it('keeps the old key until the grace period ends, never past its own expiry', async () => {
    const { rollKey, repository, clock, owner, key } = await setup(10_000);
    await rollKey.execute({ actor: owner, id: key.id, graceSeconds: 5 });
    expect(repository.rows.get(key.id)?.expiresAt?.getTime()).toBe(clock.now().getTime() + 5_000);
    const second = await setup(10_000);
    await second.rollKey.execute({ actor: second.owner, id: second.key.id, graceSeconds: 60 });
    expect(second.repository.rows.get(second.key.id)?.expiresAt).toEqual(second.key.expiresAt);
  });

  it('writes key.created and key.rolled together', async () => {
    const { rollKey, audit, owner, key } = await setup();
    const before = audit.records.length;
    const rolled = await rollKey.execute({ actor: owner, id: key.id, graceSeconds: 1 });
    expect(audit.records.slice(before).map((r) => [r.action, r.keyId])).toEqual([
      ['key.created', rolled.key.id],
      ['key.rolled', key.id],
    ]);
  });

  it("refuses a second roll, an expired key, a revoked key and another user's key, recording nothing", async () => {
    const { rollKey, audit, owner, key } = await setup(1_000);
    await rollKey.execute({ actor: owner, id: key.id, graceSeconds: 1 });
    const recorded = audit.records.length;
    await expect(rollKey.execute({ actor: owner, id: key.id, graceSeconds: 1 })).rejects.toBeInstanceOf(ConflictError);
    const other = await setup(1_000);
    other.clock.advance(1_000);
    await expect(other.rollKey.execute({ actor: other.owner, id: other.key.id })).rejects.toBeInstanceOf(ConflictError);
    await expect(rollKey.execute({ actor: ActorMother.user(), id: key.id })).rejects.toBeInstanceOf(NotFoundError);
    const third = await setup();
    await third.revokeKey.execute({ actor: third.owner, id: third.key.id });
    await expect(third.rollKey.execute({ actor: third.owner, id: third.key.id })).rejects.toBeInstanceOf(NotFoundError);
    expect(audit.records.length).toBe(recorded);
  });

  it('is held to MAX_KEYS_PER_USER like a create while both keys work, and writes nothing when refused', async () => {
    const { createKey, rollKey, repository, audit } = makeKeyService(2);
    const owner = ActorMother.user();
    const { key } = await createKey.execute({ actor: owner, name: 'a' });
    await createKey.execute({ actor: owner, name: 'b' });
    const rows = repository.rows.size;
    const recorded = audit.records.length;
    const refused = rollKey.execute({ actor: owner, id: key.id, graceSeconds: 60 });
    await expect(refused).rejects.toBeInstanceOf(ConflictError);
    await expect(refused).rejects.toThrow(/already holds 2 non-revoked keys/);
    expect(repository.rows.size).toBe(rows);
    expect(repository.rows.get(key.id)?.replacedBy).toBeNull();
    expect(audit.records.length).toBe(recorded);
    // Without a grace the old key is revoked in the same step: no room needed.
    await expect(rollKey.execute({ actor: owner, id: key.id })).resolves.toBeDefined();
  });

  it('counts the old key until its grace ends, then frees its place', async () => {
    const { createKey, rollKey, clock } = makeKeyService(2);
    const owner = ActorMother.user();
    const { key } = await createKey.execute({ actor: owner, name: 'a' });
    await rollKey.execute({ actor: owner, id: key.id, graceSeconds: 60 });
    await expect(createKey.execute({ actor: owner, name: 'b' })).rejects.toBeInstanceOf(ConflictError);
    clock.advance(60_000);
    await expect(createKey.execute({ actor: owner, name: 'b' })).resolves.toBeDefined();
  });

  it.each([-1, 2_592_001, 0.5, '10', null])('refuses grace_seconds %p', async (grace) => {
    const { rollKey, owner, key } = await setup();
    await expect(rollKey.execute({ actor: owner, id: key.id, graceSeconds: untyped(grace) })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('UpdateKey', () => {
  it('changes only the given fields and records what changed', async () => {
    const { updateKey, audit, owner, key } = await setup();
    const { key: updated } = await updateKey.execute({ actor: owner, id: key.id, scopes: ['projects:read'] });
    expect(updated.name).toBe('ci');
    expect(updated.scopes.toArray()).toEqual(['projects:read']);
    expect(audit.records.at(-1)).toMatchObject({
      action: 'key.updated',
      keyId: key.id,
      details: { changed: { scopes: ['projects:read'] } },
    });
  });

  it('refuses an empty change, null scopes and a past expiry, recording nothing', async () => {
    const { updateKey, audit, clock, owner, key } = await setup();
    const recorded = audit.records.length;
    await expect(updateKey.execute({ actor: owner, id: key.id })).rejects.toBeInstanceOf(ValidationError);
    await expect(updateKey.execute({ actor: owner, id: key.id, scopes: untyped(null) })).rejects.toBeInstanceOf(ValidationError);
    await expect(updateKey.execute({ actor: owner, id: key.id, expiresAt: new Date(clock.now().getTime() - 1) })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(audit.records.length).toBe(recorded);
  });

  it.each([
    ['during its grace', 0],
    ['after its grace', 60_000],
  ])('refuses to edit a rolled key %s, so it cannot be revived, and records nothing', async (_case, later) => {
    const { rollKey, updateKey, repository, audit, clock, owner, key } = await setup();
    const rolled = await rollKey.execute({ actor: owner, id: key.id, graceSeconds: 60 });
    const expiresAt = repository.rows.get(key.id)?.expiresAt;
    clock.advance(later);
    const recorded = audit.records.length;
    for (const change of [{ expiresAt: null }, { expiresAt: new Date(clock.now().getTime() + 86_400_000) }, { name: 'again' }]) {
      const refused = updateKey.execute({ actor: owner, id: key.id, ...change });
      await expect(refused).rejects.toBeInstanceOf(ConflictError);
      await expect(refused).rejects.toThrow(`edit its replacement ${rolled.key.id} instead`);
    }
    await expect(updateKey.execute({ actor: ActorMother.admin(), id: key.id, expiresAt: null })).rejects.toBeInstanceOf(ConflictError);
    expect(repository.rows.get(key.id)).toMatchObject({ expiresAt, name: 'ci' });
    expect(audit.records.length).toBe(recorded);
  });

  it("answers NotFound for a revoked key and another user's key", async () => {
    const { updateKey, revokeKey, owner, key } = await setup();
    await expect(updateKey.execute({ actor: ActorMother.user(), id: key.id, name: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    await revokeKey.execute({ actor: owner, id: key.id });
    await expect(updateKey.execute({ actor: owner, id: key.id, name: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(updateKey.execute({ actor: owner, id: randomUUID(), name: 'x' })).rejects.toBeInstanceOf(NotFoundError);
  });
});
