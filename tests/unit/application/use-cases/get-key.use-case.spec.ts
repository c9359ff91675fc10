import { randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '../../../../src/domain/errors';
import { ActorMother } from '../../../mothers/actor.mother';
import { makeKeyService } from '../../../support/key-service';

async function setup() {
  const service = makeKeyService();
  const owner = ActorMother.user();
  const { key } = await service.createKey.execute({ actor: owner, name: 'ci', quota: { remaining: 7 } });
  return { ...service, owner, key };
}

describe('GetKey', () => {
  it("gives the owner their key with its quota's balance", async () => {
    const { getKey, owner, key } = await setup();
    const got = await getKey.execute({ actor: owner, id: key.id.toUpperCase() });
    expect(got.key.id).toBe(key.id);
    expect(got.key.name).toBe('ci');
    expect(got.quotaRemaining).toBe(7);
  });

  it('still finds a revoked key and a rolled one past its overlap, unlike the list', async () => {
    const { getKey, revokeKey, rollKey, createKey, listKeys, owner, key } = await setup();
    await revokeKey.execute({ actor: owner, id: key.id });
    expect((await getKey.execute({ actor: owner, id: key.id })).key.revokedAt).not.toBeNull();
    const { key: other } = await createKey.execute({ actor: owner, name: 'other' });
    const rolled = await rollKey.execute({ actor: owner, id: other.id });
    expect((await getKey.execute({ actor: owner, id: other.id })).key.replacedBy).toBe(rolled.key.id);
    expect((await listKeys.execute({ actor: owner })).map((listed) => listed.key.id)).toEqual([rolled.key.id]);
  });

  it("answers NotFound for an unknown id and for another user's key, but lets an admin read it", async () => {
    const { getKey, key } = await setup();
    await expect(getKey.execute({ actor: ActorMother.user(), id: randomUUID() })).rejects.toBeInstanceOf(NotFoundError);
    await expect(getKey.execute({ actor: ActorMother.user(), id: key.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(getKey.execute({ actor: ActorMother.admin(), id: key.id })).resolves.toMatchObject({ key: { id: key.id } });
  });

  it('refuses an id that is not a UUID', async () => {
    const { getKey, owner } = await setup();
    await expect(getKey.execute({ actor: owner, id: 'not-a-uuid' })).rejects.toBeInstanceOf(ValidationError);
  });
});
