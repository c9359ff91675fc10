import { randomUUID } from 'node:crypto';
import { ForbiddenError, ValidationError } from '../../../../src/domain/errors';
import { ActorMother } from '../../../mothers/actor.mother';
import { makeKeyService } from '../../../support/key-service';
import { untyped } from '../../../support/untyped';

const MINUTE = 60_000;

describe('ListKeys', () => {
  it("lists the actor's keys newest first", async () => {
    const { createKey, listKeys, clock } = makeKeyService();
    const actor = ActorMother.user();
    for (const name of ['first', 'second', 'third']) {
      await createKey.execute({ actor, name });
      clock.advance(MINUTE);
    }
    const keys = (await listKeys.execute({ actor })).map((listed) => listed.key);
    expect(keys.map((k) => k.name)).toEqual(['third', 'second', 'first']);
  });

  it('only lists keys of the requested user', async () => {
    const { createKey, listKeys } = makeKeyService();
    const actor = ActorMother.user();
    await createKey.execute({ actor, name: 'mine' });
    await createKey.execute({ actor: ActorMother.user(), name: 'theirs' });
    const keys = (await listKeys.execute({ actor })).map((listed) => listed.key);
    expect(keys.map((k) => k.name)).toEqual(['mine']);
    expect(keys.every((k) => k.userId === actor.userId)).toBe(true);
  });

  it('omits revoked keys', async () => {
    const { createKey, revokeKey, listKeys } = makeKeyService();
    const actor = ActorMother.user();
    const revoked = await createKey.execute({ actor, name: 'revoked' });
    await createKey.execute({ actor, name: 'kept' });
    await revokeKey.execute({ actor, id: revoked.key.id });
    const keys = (await listKeys.execute({ actor })).map((listed) => listed.key);
    expect(keys.map((k) => k.name)).toEqual(['kept']);
  });

  it('includes expired keys', async () => {
    const { createKey, listKeys, clock } = makeKeyService();
    const actor = ActorMother.user();
    const expiresAt = new Date(clock.now().getTime() + MINUTE).toISOString();
    const { key } = await createKey.execute({ actor, name: 'short-lived', expiresAt });
    clock.advance(2 * MINUTE);
    const keys = (await listKeys.execute({ actor })).map((listed) => listed.key);
    expect(keys.map((k) => k.id)).toEqual([key.id]);
    expect(keys[0].stateAt(clock.now())).toBe('expired');
  });

  it('returns an empty list for a user without keys', async () => {
    const { listKeys } = makeKeyService();
    await expect(listKeys.execute({ actor: ActorMother.user() })).resolves.toEqual([]);
  });

  it("forbids a non-admin from listing another user's keys", async () => {
    const { createKey, listKeys } = makeKeyService();
    const owner = ActorMother.user();
    await createKey.execute({ actor: owner, name: 'secret' });
    await expect(listKeys.execute({ actor: ActorMother.user(), userId: owner.userId })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('lets a non-admin name their own user_id, in any letter case', async () => {
    const { createKey, listKeys } = makeKeyService();
    const actor = ActorMother.user();
    await createKey.execute({ actor, name: 'mine' });
    const keys = (await listKeys.execute({ actor, userId: actor.userId.toUpperCase() })).map((listed) => listed.key);
    expect(keys.map((k) => k.name)).toEqual(['mine']);
  });

  it("lets an admin list another user's keys", async () => {
    const { createKey, listKeys } = makeKeyService();
    const owner = ActorMother.user();
    await createKey.execute({ actor: owner, name: 'theirs' });
    const keys = (await listKeys.execute({ actor: ActorMother.admin(), userId: owner.userId })).map((listed) => listed.key);
    expect(keys.map((k) => k.name)).toEqual(['theirs']);
  });

  it.each(['not-a-uuid', '', 123, { id: randomUUID() }])('rejects user_id %p with a ValidationError', async (userId) => {
    const { listKeys } = makeKeyService();
    const error = await listKeys.execute({ actor: ActorMother.admin(), userId: untyped(userId) }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors.map((e) => e.field)).toEqual(['user_id']);
  });
});
