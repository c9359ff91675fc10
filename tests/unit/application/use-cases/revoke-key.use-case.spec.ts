import { randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '../../../../src/domain/errors';
import { Actor } from '../../../../src/domain/actor';
import { ActorMother } from '../../../mothers/actor.mother';
import { makeKeyService } from '../../../support/key-service';
import { untyped } from '../../../support/untyped';

async function setup() {
  const service = makeKeyService();
  const owner = ActorMother.user();
  const { key, rawKey } = await service.createKey.execute({ actor: owner, name: 'ci' });
  return { ...service, owner, key, rawKey };
}

describe('RevokeKey', () => {
  it('sets revoked_at to the clock time', async () => {
    const { revokeKey, repository, clock, owner, key } = await setup();
    clock.advance(5_000);
    await revokeKey.execute({ actor: owner, id: key.id });
    const stored = await repository.findById(key.id);
    expect(stored?.revokedAt).toEqual(clock.now());
    expect(stored?.stateAt(clock.now())).toBe('revoked');
  });

  it('makes the key stop validating immediately', async () => {
    const { revokeKey, validateKey, owner, key, rawKey } = await setup();
    await expect(validateKey.execute({ rawKey })).resolves.toBeDefined();
    await revokeKey.execute({ actor: owner, id: key.id });
    await expect(validateKey.execute({ rawKey })).rejects.toThrow();
  });

  it('accepts the id in upper case', async () => {
    const { revokeKey, repository, owner, key } = await setup();
    await revokeKey.execute({ actor: owner, id: key.id.toUpperCase() });
    expect(repository.rows.get(key.id)?.revokedAt).not.toBeNull();
  });

  it('answers NotFound for an unknown id', async () => {
    const { revokeKey, owner } = await setup();
    await expect(revokeKey.execute({ actor: owner, id: randomUUID() })).rejects.toBeInstanceOf(NotFoundError);
  });

  it("answers NotFound for another user's key when the actor is not an admin, and leaves it alone", async () => {
    const { revokeKey, repository, key } = await setup();
    const stranger: Actor = ActorMother.user();
    await expect(revokeKey.execute({ actor: stranger, id: key.id })).rejects.toBeInstanceOf(NotFoundError);
    expect(repository.rows.get(key.id)?.revokedAt).toBeNull();
  });

  it('answers NotFound for an already revoked key and keeps the first revocation time', async () => {
    const { revokeKey, repository, clock, owner, key } = await setup();
    await revokeKey.execute({ actor: owner, id: key.id });
    const firstRevokedAt = repository.rows.get(key.id)?.revokedAt;
    clock.advance(60_000);
    await expect(revokeKey.execute({ actor: owner, id: key.id })).rejects.toBeInstanceOf(NotFoundError);
    expect(repository.rows.get(key.id)?.revokedAt).toEqual(firstRevokedAt);
  });

  it("lets an admin revoke another user's key", async () => {
    const { revokeKey, repository, clock, key } = await setup();
    await revokeKey.execute({ actor: ActorMother.admin(), id: key.id });
    expect(repository.rows.get(key.id)?.revokedAt).toEqual(clock.now());
  });

  it('only revokes the named key', async () => {
    const { revokeKey, createKey, repository, owner, key } = await setup();
    const other = await createKey.execute({ actor: owner, name: 'other' });
    await revokeKey.execute({ actor: owner, id: key.id });
    expect(repository.rows.get(other.key.id)?.revokedAt).toBeNull();
  });

  it.each(['not-a-uuid', '', 17, null, undefined])('rejects the non-UUID id %p with a ValidationError', async (id) => {
    const { revokeKey, owner } = await setup();
    const error = await revokeKey.execute({ actor: owner, id: untyped(id) }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors.map((e) => e.field)).toEqual(['id']);
  });
});
