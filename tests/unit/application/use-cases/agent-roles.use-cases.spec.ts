import { randomUUID } from 'node:crypto';
import { ConflictError, ForbiddenError, NotFoundError } from '../../../../src/domain/errors';
import { ActorMother } from '../../../mothers/actor.mother';
import { caught, failedFields, makeScopeContextService } from '../../../support/scope-context-service';
import { untyped } from '../../../support/untyped';

const admin = ActorMother.admin();
const user = ActorMother.user();

async function setup() {
  const service = makeScopeContextService();
  const observer = service.roles.seedSystemRole('observer', ['agents:read', 'chat:read']);
  const role = await service.createAgentRole.execute({
    actor: admin,
    name: 'reviewer',
    description: 'Reviews',
    platformScopes: ['projects:read'],
  });
  return { ...service, observer, role };
}

describe('CreateAgentRole', () => {
  it('stores a non-system role with the given fields and the clock time', async () => {
    const { role, getAgentRole, clock } = await setup();
    expect(role).toMatchObject({ name: 'reviewer', description: 'Reviews', isSystem: false, createdAt: clock.now() });
    expect(role.platformScopes.toArray()).toEqual(['projects:read']);
    const stored = await getAgentRole.execute({ id: role.id.toUpperCase() });
    expect(stored.platformScopes.toArray()).toEqual(['projects:read']);
  });

  it('gives full access only for an explicit empty platform_scopes', async () => {
    const { createAgentRole } = await setup();
    const role = await createAgentRole.execute({ actor: admin, name: 'root', platformScopes: [] });
    expect(role.platformScopes.isFullAccess).toBe(true);
    expect(role.description).toBe('');
  });

  it.each([
    ['left out', undefined],
    ['null', null],
  ])('refuses platform_scopes %s instead of granting full access', async (_what, value) => {
    const { createAgentRole, roles } = await setup();
    await expect(failedFields(createAgentRole.execute({ actor: admin, name: 'root', platformScopes: untyped(value) }))).resolves.toEqual([
      'platform_scopes',
    ]);
    expect(roles.rows.size).toBe(2);
  });

  it('is for admins only and stores nothing otherwise', async () => {
    const { createAgentRole, roles } = await setup();
    await expect(createAgentRole.execute({ actor: user, name: 'sneaky', platformScopes: [] })).rejects.toBeInstanceOf(ForbiddenError);
    expect(roles.rows.size).toBe(2);
  });

  it.each([
    ['a blank name', { name: '   ', platformScopes: [] }, ['name']],
    ['a name over 100 characters', { name: 'x'.repeat(101), platformScopes: [] }, ['name']],
    ['a missing name', { name: undefined, platformScopes: [] }, ['name']],
    ['an unknown scope', { name: 'a', platformScopes: ['agents:read', 'agents:admin'] }, ['platform_scopes[1]']],
    ['a malformed scope', { name: 'a', platformScopes: ['projects'] }, ['platform_scopes[0]']],
    ['a repeated scope', { name: 'a', platformScopes: ['chat:read', 'chat:read'] }, ['platform_scopes[1]']],
    ['scopes that are not an array', { name: 'a', platformScopes: 'chat:read' }, ['platform_scopes']],
    ['a description over 2000 characters', { name: 'a', description: 'd'.repeat(2001), platformScopes: [] }, ['description']],
  ])('rejects %s, naming the field', async (_what, fields, expected) => {
    const { createAgentRole, roles } = await setup();
    await expect(failedFields(createAgentRole.execute(untyped({ actor: admin, ...fields })))).resolves.toEqual(expected);
    expect(roles.rows.size).toBe(2);
  });

  it('reports several field errors together', async () => {
    const { createAgentRole } = await setup();
    const input = { actor: admin, name: '', description: 42, platformScopes: ['nope', 'models:write', 'x:y'] };
    await expect(failedFields(createAgentRole.execute(untyped(input)))).resolves.toEqual([
      'name',
      'description',
      'platform_scopes[0]',
      'platform_scopes[2]',
    ]);
  });

  it('accepts a name of exactly 100 characters', async () => {
    const { createAgentRole } = await setup();
    await expect(createAgentRole.execute({ actor: admin, name: 'n'.repeat(100), platformScopes: [] })).resolves.toBeDefined();
  });

  it('answers Conflict for a taken name, whatever its case', async () => {
    const { createAgentRole, roles } = await setup();
    await expect(createAgentRole.execute({ actor: admin, name: 'Reviewer', platformScopes: [] })).rejects.toBeInstanceOf(ConflictError);
    await expect(createAgentRole.execute({ actor: admin, name: 'OBSERVER', platformScopes: [] })).rejects.toBeInstanceOf(ConflictError);
    expect(roles.rows.size).toBe(2);
  });
});

describe('ListAgentRoles and GetAgentRole', () => {
  it('lists system roles first, then by name', async () => {
    const { listAgentRoles, createAgentRole, roles } = await setup();
    roles.seedSystemRole('planner', ['projects:write']);
    await createAgentRole.execute({ actor: admin, name: 'auditor', platformScopes: [] });
    expect((await listAgentRoles.execute()).map((r) => r.name)).toEqual(['observer', 'planner', 'auditor', 'reviewer']);
  });

  it('answers NotFound for an unknown id and ValidationError for a non-UUID', async () => {
    const { getAgentRole } = await setup();
    await expect(getAgentRole.execute({ id: randomUUID() })).rejects.toBeInstanceOf(NotFoundError);
    await expect(failedFields(getAgentRole.execute({ id: 'observer' }))).resolves.toEqual(['id']);
  });
});

describe('UpdateAgentRole', () => {
  it('changes only the given fields and bumps updatedAt', async () => {
    const { updateAgentRole, getAgentRole, clock, role } = await setup();
    clock.advance(1_000);
    await updateAgentRole.execute({ actor: admin, id: role.id, platformScopes: ['projects:write'] });
    const stored = await getAgentRole.execute({ id: role.id });
    expect(stored).toMatchObject({ name: 'reviewer', description: 'Reviews', createdAt: role.createdAt, updatedAt: clock.now() });
    expect(stored.platformScopes.toArray()).toEqual(['projects:write']);
  });

  it('lets a system role be edited and keeps it a system role', async () => {
    const { updateAgentRole, observer } = await setup();
    const updated = await updateAgentRole.execute({ actor: admin, id: observer.id, name: 'watcher', platformScopes: [] });
    expect(updated).toMatchObject({ name: 'watcher', isSystem: true });
    expect(updated.platformScopes.isFullAccess).toBe(true);
  });

  it('is for admins only and changes nothing otherwise', async () => {
    const { updateAgentRole, getAgentRole, role } = await setup();
    const work = updateAgentRole.execute({ actor: user, id: role.id, name: 'mine' });
    await expect(work).rejects.toBeInstanceOf(ForbiddenError);
    expect((await getAgentRole.execute({ id: role.id })).name).toBe('reviewer');
  });

  it('rejects an empty change, bad fields together, and a non-UUID id', async () => {
    const { updateAgentRole, role } = await setup();
    await expect(failedFields(updateAgentRole.execute({ actor: admin, id: role.id }))).resolves.toEqual(['body']);
    const bad = updateAgentRole.execute({ actor: admin, id: role.id, name: ' ', platformScopes: ['chat:delete'] });
    await expect(failedFields(bad)).resolves.toEqual(['name', 'platform_scopes[0]']);
    await expect(failedFields(updateAgentRole.execute({ actor: admin, id: untyped(7), name: 'x' }))).resolves.toEqual(['id']);
  });

  it('answers Conflict when renaming onto another role, but not onto its own name', async () => {
    const { updateAgentRole, role } = await setup();
    await expect(updateAgentRole.execute({ actor: admin, id: role.id, name: 'Observer' })).rejects.toBeInstanceOf(ConflictError);
    await expect(updateAgentRole.execute({ actor: admin, id: role.id, name: 'REVIEWER' })).resolves.toMatchObject({ name: 'REVIEWER' });
  });

  it('answers NotFound for an unknown id', async () => {
    const { updateAgentRole } = await setup();
    await expect(updateAgentRole.execute({ actor: admin, id: randomUUID(), name: 'x' })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('DeleteAgentRole', () => {
  it('removes the role; a second delete answers NotFound', async () => {
    const { deleteAgentRole, getAgentRole, role } = await setup();
    await deleteAgentRole.execute({ actor: admin, id: role.id });
    await expect(getAgentRole.execute({ id: role.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(deleteAgentRole.execute({ actor: admin, id: role.id })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses to delete a system role with Conflict and keeps it', async () => {
    const { deleteAgentRole, getAgentRole, observer } = await setup();
    const error = await caught(deleteAgentRole.execute({ actor: admin, id: observer.id }));
    expect(error).toBeInstanceOf(ConflictError);
    await expect(getAgentRole.execute({ id: observer.id })).resolves.toMatchObject({ name: 'observer' });
  });

  it('is for admins only and keeps the role otherwise', async () => {
    const { deleteAgentRole, roles, role } = await setup();
    await expect(deleteAgentRole.execute({ actor: user, id: role.id })).rejects.toBeInstanceOf(ForbiddenError);
    expect(roles.rows.has(role.id)).toBe(true);
  });
});

describe('UpdateAgentRole with platform_scopes null', () => {
  it('refuses null instead of widening the role to full access', async () => {
    const svc = makeScopeContextService();
    const admin = ActorMother.admin();
    const role = await svc.createAgentRole.execute({ actor: admin, name: 'narrow', platformScopes: ['chat:read'] });
    await expect(svc.updateAgentRole.execute({ actor: admin, id: role.id, platformScopes: untyped(null) })).rejects.toThrow(
      /platform_scopes/,
    );
    expect((await svc.getAgentRole.execute({ id: role.id })).platformScopes.toArray()).toEqual(['chat:read']);
  });
});
