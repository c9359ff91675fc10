import { AuthorizeForwardedRequest } from '../../../../src/application/use-cases/forward-auth/authorize-forwarded-request.use-case';
import { IntrospectKey } from '../../../../src/application/use-cases/introspect-key/introspect-key.use-case';
import { ForbiddenError, InsufficientScopeError, ValidationError } from '../../../../src/domain/errors';
import { Scope, SCOPE_CATALOG, ScopeSet } from '../../../../src/domain/scope';
import { ActorMother } from '../../../mothers/actor.mother';
import { makeKeyService } from '../../../support/key-service';

const MINUTE = 60_000;

describe('AuthorizeForwardedRequest', () => {
  const makeSut = () => new AuthorizeForwardedRequest();
  const principal = (scopes: string[]) => ({ keyId: 'key-1', userId: 'user-1', scopes: ScopeSet.fromTrusted(scopes) });

  it('passes any valid key when no scope is required, naming every scope it grants', () => {
    expect(makeSut().execute({ principal: principal(['routines:write']), requiredScope: null })).toEqual({
      userId: 'user-1',
      keyId: 'key-1',
      scopes: ['routines:read', 'routines:write'],
    });
  });

  it('lets :write stand for :read but not the other way round', () => {
    const sut = makeSut();
    expect(() => sut.execute({ principal: principal(['projects:write']), requiredScope: Scope.parse('projects:read') })).not.toThrow();
    expect(() => sut.execute({ principal: principal(['projects:read']), requiredScope: Scope.parse('projects:write') })).toThrow(
      new InsufficientScopeError(['projects:write']),
    );
  });

  it('says "all" for a full-access key, whatever is required', () => {
    expect(makeSut().execute({ principal: principal([]), requiredScope: Scope.parse('models:write') }).scopes).toBe('all');
  });
});

describe('IntrospectKey', () => {
  async function makeSut(input: { expiresInMs?: number; scopes?: string[] } = {}) {
    const service = makeKeyService();
    const owner = ActorMother.user();
    const expiresAt =
      input.expiresInMs === undefined ? undefined : new Date(service.clock.now().getTime() + input.expiresInMs).toISOString();
    const { key, rawKey } = await service.createKey.execute({ actor: owner, name: 'k', expiresAt, scopes: input.scopes });
    const sut = new IntrospectKey(service.repository, service.hasher, service.clock);
    return { ...service, sut, owner, key, rawKey };
  }

  it('describes an active key and leaves last_used_at alone', async () => {
    const { sut, key, rawKey, owner, repository } = await makeSut({ scopes: ['chat:write'], expiresInMs: MINUTE });
    expect(await sut.execute({ actor: ActorMother.admin(), token: rawKey })).toEqual({
      active: true,
      keyId: key.id,
      userId: owner.userId,
      scopes: ['chat:read', 'chat:write'],
      createdAt: key.createdAt,
      expiresAt: key.expiresAt,
    });
    expect(repository.touches).toBe(0);
  });

  it('grants a full-access key all twelve scopes', async () => {
    const { sut, rawKey } = await makeSut();
    const result = await sut.execute({ actor: ActorMother.admin(), token: rawKey });
    expect(result.active && result.scopes).toEqual(SCOPE_CATALOG.map((s) => s.scope));
  });

  it('is inactive for an expired, revoked, unknown or malformed key, without a lookup for the malformed one', async () => {
    const { sut, rawKey, clock, repository } = await makeSut({ expiresInMs: MINUTE });
    const admin = ActorMother.admin();
    clock.advance(MINUTE);
    expect(await sut.execute({ actor: admin, token: rawKey })).toEqual({ active: false });
    const other = await makeSut();
    await other.revokeKey.execute({ actor: other.owner, id: other.key.id });
    expect(await other.sut.execute({ actor: admin, token: other.rawKey })).toEqual({ active: false });
    expect(await sut.execute({ actor: admin, token: `svc_${'f'.repeat(64)}` })).toEqual({ active: false });
    const findByHash = jest.spyOn(repository, 'findByHash');
    expect(await sut.execute({ actor: admin, token: 'svc_short' })).toEqual({ active: false });
    expect(findByHash).not.toHaveBeenCalled();
  });

  it('refuses anyone but an admin before looking at the token', async () => {
    const { sut, rawKey, owner } = await makeSut();
    await expect(sut.execute({ actor: owner, token: rawKey })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(sut.execute({ actor: owner, token: undefined as unknown as string })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('asks for exactly one token', async () => {
    const { sut } = await makeSut();
    await expect(sut.execute({ actor: ActorMother.admin(), token: undefined as unknown as string })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(sut.execute({ actor: ActorMother.admin(), token: ['a', 'b'] as unknown as string })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });
});
