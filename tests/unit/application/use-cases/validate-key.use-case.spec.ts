import { ValidateKey } from '../../../../src/application/use-cases/validate-key/validate-key.use-case';
import { InvalidApiKeyError } from '../../../../src/domain/errors';
import { ActorMother } from '../../../mothers/actor.mother';
import { makeKeyService } from '../../../support/key-service';

const MINUTE = 60_000;

async function setup(input: { expiresInMs?: number; scopes?: string[] } = {}) {
  const service = makeKeyService();
  const owner = ActorMother.user();
  const expiresAt = input.expiresInMs === undefined ? undefined : new Date(service.clock.now().getTime() + input.expiresInMs).toISOString();
  const { key, rawKey } = await service.createKey.execute({ actor: owner, name: 'ci', expiresAt, scopes: input.scopes });
  // A spy around the fake repository: counts lookups by hash.
  const findByHash = jest.spyOn(service.repository, 'findByHash');
  return { ...service, owner, key, rawKey, findByHash };
}

describe('ValidateKey', () => {
  it("returns the key's user and scopes and sets last_used_at to the clock time", async () => {
    const { validateKey, repository, clock, owner, key, rawKey } = await setup({ scopes: ['projects:read'] });
    clock.advance(MINUTE);
    const principal = await validateKey.execute({ rawKey });
    expect(principal.keyId).toBe(key.id);
    expect(principal.userId).toBe(owner.userId);
    expect(principal.scopes.toArray()).toEqual(['projects:read']);
    expect(repository.rows.get(key.id)?.lastUsedAt).toEqual(clock.now());
  });

  it('moves last_used_at forward on each use', async () => {
    const { validateKey, repository, clock, key, rawKey } = await setup();
    await validateKey.execute({ rawKey });
    clock.advance(MINUTE);
    await validateKey.execute({ rawKey });
    expect(repository.rows.get(key.id)?.lastUsedAt).toEqual(clock.now());
    expect(repository.touches).toBe(2);
  });

  it('looks the key up by its SHA-256 hash', async () => {
    const { validateKey, hasher, findByHash, rawKey } = await setup();
    await validateKey.execute({ rawKey });
    expect(findByHash).toHaveBeenCalledTimes(1);
    expect(findByHash).toHaveBeenCalledWith(hasher.hash(rawKey));
  });

  it.each([
    ['empty', ''],
    ['wrong prefix', `key_${'a'.repeat(64)}`],
    ['too short', `svc_${'a'.repeat(63)}`],
    ['uppercase hex', `svc_${'A'.repeat(64)}`],
    ['a bearer header value', `Bearer svc_${'a'.repeat(64)}`],
  ])('rejects a malformed key (%s) without any repository lookup', async (_label, rawKey) => {
    const { validateKey, repository, findByHash } = await setup();
    await expect(validateKey.execute({ rawKey })).rejects.toBeInstanceOf(InvalidApiKeyError);
    expect(findByHash).not.toHaveBeenCalled();
    expect(repository.touches).toBe(0);
  });

  it('rejects a well-formed but unknown key', async () => {
    const { validateKey, findByHash, repository } = await setup();
    await expect(validateKey.execute({ rawKey: `svc_${'0'.repeat(64)}` })).rejects.toBeInstanceOf(InvalidApiKeyError);
    expect(findByHash).toHaveBeenCalledTimes(1);
    expect(repository.touches).toBe(0);
  });

  it('rejects a revoked key and leaves last_used_at alone', async () => {
    const { validateKey, revokeKey, repository, owner, key, rawKey } = await setup();
    await revokeKey.execute({ actor: owner, id: key.id });
    await expect(validateKey.execute({ rawKey })).rejects.toBeInstanceOf(InvalidApiKeyError);
    expect(repository.rows.get(key.id)?.lastUsedAt).toBeNull();
  });

  it('checks expiry against the clock: valid before, invalid once expires_at is reached or passed', async () => {
    const { validateKey, repository, clock, key, rawKey } = await setup({ expiresInMs: 10 * MINUTE });
    clock.advance(10 * MINUTE - 1);
    await expect(validateKey.execute({ rawKey })).resolves.toMatchObject({ keyId: key.id });
    const lastUsed = repository.rows.get(key.id)?.lastUsedAt;

    clock.advance(1);
    await expect(validateKey.execute({ rawKey })).rejects.toBeInstanceOf(InvalidApiKeyError);
    clock.advance(MINUTE);
    await expect(validateKey.execute({ rawKey })).rejects.toBeInstanceOf(InvalidApiKeyError);
    expect(repository.rows.get(key.id)?.lastUsedAt).toEqual(lastUsed);
  });

  it('uses one error for every failure so callers cannot tell which check failed', async () => {
    const { validateKey, revokeKey, owner, key, rawKey } = await setup();
    await revokeKey.execute({ actor: owner, id: key.id });
    const messages = await Promise.all(
      ['bad', `svc_${'1'.repeat(64)}`, rawKey].map((k) =>
        validateKey.execute({ rawKey: k }).then(
          () => 'ok',
          (e: Error) => `${e.name}: ${e.message}`,
        ),
      ),
    );
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).toMatch(/^InvalidApiKeyError/);
  });

  it('can be built over any repository and hasher', () => {
    const { repository, hasher, clock } = makeKeyService();
    expect(new ValidateKey(repository, hasher, clock)).toBeInstanceOf(ValidateKey);
  });
});
