import { createHash, randomUUID } from 'node:crypto';
import { ConflictError, FieldError, ForbiddenError, ValidationError } from '../../../../src/domain/errors';
import { ActorMother } from '../../../mothers/actor.mother';
import { makeKeyService } from '../../../support/key-service';
import { untyped } from '../../../support/untyped';

const DAY = 86_400_000;

async function validationErrorsOf(promise: Promise<unknown>): Promise<FieldError[]> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return (error as ValidationError).errors;
}

describe('CreateKey', () => {
  it('returns a raw key of svc_ and 64 lowercase hex characters, stored only as its SHA-256 hash', async () => {
    const { createKey, repository } = makeKeyService();
    const { key, rawKey } = await createKey.execute({ actor: ActorMother.user(), name: 'ci' });

    expect(rawKey).toMatch(/^svc_[0-9a-f]{64}$/);
    expect(key.keyPrefix).toBe(rawKey.slice(0, 8));
    expect(key.keyHash).toBe(createHash('sha256').update(rawKey).digest('hex'));

    const stored = repository.rows.get(key.id)!;
    expect(stored.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.keyHash).toBe(key.keyHash);
    expect(JSON.stringify(stored)).not.toContain(rawKey);
    expect(JSON.stringify(stored)).not.toContain(rawKey.slice(4));
  });

  it('gives every key a fresh raw key', async () => {
    const { createKey } = makeKeyService();
    const actor = ActorMother.user();
    const a = await createKey.execute({ actor, name: 'a' });
    const b = await createKey.execute({ actor, name: 'b' });
    expect(a.rawKey).not.toBe(b.rawKey);
    expect(a.key.id).not.toBe(b.key.id);
  });

  it('defaults the owner to the actor and records the clock time', async () => {
    const { createKey, clock } = makeKeyService();
    const actor = ActorMother.user();
    const { key } = await createKey.execute({ actor, name: 'ci' });
    expect(key.userId).toBe(actor.userId);
    expect(key.name).toBe('ci');
    expect(key.createdAt).toEqual(clock.now());
    expect(key.expiresAt).toBeNull();
    expect(key.lastUsedAt).toBeNull();
    expect(key.revokedAt).toBeNull();
  });

  it('forbids a non-admin from creating a key for another user and stores nothing', async () => {
    const { createKey, repository } = makeKeyService();
    const attempt = createKey.execute({ actor: ActorMother.user(), name: 'x', userId: randomUUID() });
    await expect(attempt).rejects.toBeInstanceOf(ForbiddenError);
    expect(repository.rows.size).toBe(0);
  });

  it('lets a non-admin name themself explicitly', async () => {
    const { createKey } = makeKeyService();
    const actor = ActorMother.user();
    const { key } = await createKey.execute({ actor, name: 'x', userId: actor.userId.toUpperCase() });
    expect(key.userId).toBe(actor.userId);
  });

  it('lets an admin create a key for another user', async () => {
    const { createKey } = makeKeyService();
    const other = randomUUID();
    const { key } = await createKey.execute({ actor: ActorMother.admin(), name: 'x', userId: other });
    expect(key.userId).toBe(other);
  });

  it('keeps a future expiry and the given scopes', async () => {
    const { createKey, clock } = makeKeyService();
    const expiresAt = new Date(clock.now().getTime() + DAY).toISOString();
    const { key } = await createKey.execute({
      actor: ActorMother.user(),
      name: 'x',
      expiresAt,
      scopes: ['projects:read', 'chat:write'],
    });
    expect(key.expiresAt?.toISOString()).toBe(expiresAt);
    expect(key.scopes.toArray()).toEqual(['projects:read', 'chat:write']);
    expect(key.scopes.allows('agents:read')).toBe(false);
  });

  it.each([[undefined], [[]]])('gives full access when scopes is %p', async (scopes) => {
    const { createKey } = makeKeyService();
    const { key } = await createKey.execute({ actor: ActorMother.user(), name: 'x', scopes });
    expect(key.scopes.isFullAccess).toBe(true);
    expect(key.scopes.toArray()).toEqual([]);
  });

  it.each(['not-a-uuid', 42, '6f1c2a4e3b7d4c8e9f101a2b3c4d5e6f'])('rejects user_id %p', async (userId) => {
    const { createKey } = makeKeyService();
    const errors = await validationErrorsOf(createKey.execute({ actor: ActorMother.admin(), name: 'x', userId: untyped(userId) }));
    expect(errors.map((e) => e.field)).toEqual(['user_id']);
  });

  it.each([
    'tomorrow',
    '2027-01-01',
    '2027-01-01T00:00:00',
    '2027-13-01T00:00:00Z',
    '2027-02-30T00:00:00Z',
    '2027-01-01T24:00:00Z',
    '2027-01-01T00:00:00+0200',
    1893456000000,
  ])('rejects expires_at %p that is not an ISO-8601 timestamp', async (expiresAt) => {
    const { createKey } = makeKeyService();
    const errors = await validationErrorsOf(createKey.execute({ actor: ActorMother.user(), name: 'x', expiresAt: untyped(expiresAt) }));
    expect(errors).toEqual([{ field: 'expires_at', message: expect.stringContaining('ISO-8601') }]);
  });

  it.each([
    ['in the past', -1],
    ['exactly now', 0],
  ])('rejects expires_at %s', async (_label, offset) => {
    const { createKey, clock, repository } = makeKeyService();
    const expiresAt = new Date(clock.now().getTime() + offset).toISOString();
    const errors = await validationErrorsOf(createKey.execute({ actor: ActorMother.user(), name: 'x', expiresAt }));
    expect(errors).toEqual([{ field: 'expires_at', message: 'must be in the future' }]);
    expect(repository.rows.size).toBe(0);
  });

  it('takes a Date from in-process callers, with the same rules as a timestamp', async () => {
    const { createKey, clock } = makeKeyService();
    const at = new Date(clock.now().getTime() + DAY);
    const { key } = await createKey.execute({ actor: ActorMother.user(), name: 'x', expiresAt: at });
    expect(key.expiresAt?.getTime()).toBe(at.getTime());
    for (const bad of [new Date(clock.now().getTime() - 1), new Date(Number.NaN)]) {
      const errors = await validationErrorsOf(createKey.execute({ actor: ActorMother.user(), name: 'x', expiresAt: bad }));
      expect(errors).toEqual([{ field: 'expires_at', message: expect.stringMatching(/future|ISO-8601/) }]);
    }
  });

  it('reports every bad field together', async () => {
    const { createKey, repository } = makeKeyService();
    const errors = await validationErrorsOf(
      createKey.execute({
        actor: ActorMother.user(),
        name: '  ',
        userId: 'nope',
        expiresAt: 'soon',
        scopes: ['agents:read', 'bad'],
      }),
    );
    expect(errors.map((e) => e.field).sort()).toEqual(['expires_at', 'name', 'scopes[1]', 'user_id']);
    expect(repository.rows.size).toBe(0);
  });

  it('refuses a key beyond the per-user limit with ConflictError and stores nothing', async () => {
    const { createKey, repository } = makeKeyService(2);
    const actor = ActorMother.user();
    await createKey.execute({ actor, name: 'a' });
    await createKey.execute({ actor, name: 'b' });
    await expect(createKey.execute({ actor, name: 'c' })).rejects.toBeInstanceOf(ConflictError);
    expect(repository.rows.size).toBe(2);
    // The limit is per user: someone else may still create one.
    await expect(createKey.execute({ actor: ActorMother.user(), name: 'd' })).resolves.toBeDefined();
  });

  it('does not count revoked keys toward the limit', async () => {
    const { createKey, revokeKey } = makeKeyService(1);
    const actor = ActorMother.user();
    const first = await createKey.execute({ actor, name: 'a' });
    await revokeKey.execute({ actor, id: first.key.id });
    const second = await createKey.execute({ actor, name: 'b' });
    expect(second.key.name).toBe('b');
  });
});

describe('CreateKey expiry offsets', () => {
  it('accepts a leap day and an offset, storing the instant in UTC', async () => {
    const { createKey } = makeKeyService();
    const { key } = await createKey.execute({ actor: ActorMother.user(), name: 'x', expiresAt: '2028-02-29T01:30:00+02:00' });
    expect(key.expiresAt!.toISOString()).toBe('2028-02-28T23:30:00.000Z');
  });
});
