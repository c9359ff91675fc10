import { randomUUID } from 'node:crypto';
import { ConflictError, ForbiddenError, NotFoundError } from '../../../../src/domain/errors';
import { ActorMother } from '../../../mothers/actor.mother';
import { failedFields, makeScopeContextService } from '../../../support/scope-context-service';
import { untyped } from '../../../support/untyped';

const admin = ActorMother.admin();
const user = ActorMother.user();

async function setup() {
  const service = makeScopeContextService();
  const mode = await service.createModeToolConfig.execute({ actor: admin, mode: 'review', additionalScopes: ['projects:write'] });
  return { ...service, mode };
}

describe('CreateModeToolConfig', () => {
  it('stores the mode and its additional scopes at the clock time', async () => {
    const { mode, getModeToolConfig, clock } = await setup();
    expect(mode).toMatchObject({ mode: 'review', createdAt: clock.now(), updatedAt: clock.now() });
    const stored = await getModeToolConfig.execute({ id: mode.id });
    expect(stored.additionalScopes.toArray()).toEqual(['projects:write']);
  });

  it('is for admins only and stores nothing otherwise', async () => {
    const { createModeToolConfig, modes } = await setup();
    const work = createModeToolConfig.execute({ actor: user, mode: 'build', additionalScopes: ['agents:write'] });
    await expect(work).rejects.toBeInstanceOf(ForbiddenError);
    expect(modes.rows.size).toBe(1);
  });

  it.each([
    ['empty additional_scopes (empty would mean full access)', { mode: 'm', additionalScopes: [] }, ['additional_scopes']],
    ['missing additional_scopes', { mode: 'm', additionalScopes: undefined }, ['additional_scopes']],
    ['an unknown scope', { mode: 'm', additionalScopes: ['chat:read', 'chat:own'] }, ['additional_scopes[1]']],
    ['a blank mode', { mode: '  ', additionalScopes: ['chat:read'] }, ['mode']],
    ['a mode over 64 characters', { mode: 'm'.repeat(65), additionalScopes: ['chat:read'] }, ['mode']],
    ['several bad fields at once', { mode: '', additionalScopes: ['bogus'] }, ['mode', 'additional_scopes[0]']],
  ])('rejects %s, naming the field', async (_what, fields, expected) => {
    const { createModeToolConfig, modes } = await setup();
    await expect(failedFields(createModeToolConfig.execute(untyped({ actor: admin, ...fields })))).resolves.toEqual(expected);
    expect(modes.rows.size).toBe(1);
  });

  it('answers Conflict for a mode that is already configured', async () => {
    const { createModeToolConfig, modes } = await setup();
    const work = createModeToolConfig.execute({ actor: admin, mode: 'review', additionalScopes: ['chat:write'] });
    await expect(work).rejects.toBeInstanceOf(ConflictError);
    expect(modes.rows.size).toBe(1);
  });
});

describe('ListModeToolConfigs and GetModeToolConfig', () => {
  it('lists by mode name', async () => {
    const { listModeToolConfigs, createModeToolConfig } = await setup();
    await createModeToolConfig.execute({ actor: admin, mode: 'zen', additionalScopes: ['chat:read'] });
    await createModeToolConfig.execute({ actor: admin, mode: 'build', additionalScopes: ['agents:write'] });
    expect((await listModeToolConfigs.execute()).map((m) => m.mode)).toEqual(['build', 'review', 'zen']);
  });

  it('answers NotFound for an unknown id and ValidationError for a non-UUID', async () => {
    const { getModeToolConfig } = await setup();
    await expect(getModeToolConfig.execute({ id: randomUUID() })).rejects.toBeInstanceOf(NotFoundError);
    await expect(failedFields(getModeToolConfig.execute({ id: 'review' }))).resolves.toEqual(['id']);
  });
});

describe('UpdateModeToolConfig', () => {
  it('changes the additional scopes, keeps the mode name and bumps updatedAt', async () => {
    const { updateModeToolConfig, clock, mode } = await setup();
    clock.advance(1_000);
    const updated = await updateModeToolConfig.execute({ actor: admin, id: mode.id, additionalScopes: ['chat:write'] });
    expect(updated).toMatchObject({ mode: 'review', createdAt: mode.createdAt, updatedAt: clock.now() });
    expect(updated.additionalScopes.toArray()).toEqual(['chat:write']);
  });

  it('renames the mode', async () => {
    const { updateModeToolConfig, getModeToolConfig, mode } = await setup();
    await updateModeToolConfig.execute({ actor: admin, id: mode.id, mode: 'audit' });
    expect((await getModeToolConfig.execute({ id: mode.id })).mode).toBe('audit');
  });

  it('is for admins only and changes nothing otherwise', async () => {
    const { updateModeToolConfig, getModeToolConfig, mode } = await setup();
    const work = updateModeToolConfig.execute({ actor: user, id: mode.id, additionalScopes: ['models:write'] });
    await expect(work).rejects.toBeInstanceOf(ForbiddenError);
    expect((await getModeToolConfig.execute({ id: mode.id })).additionalScopes.toArray()).toEqual(['projects:write']);
  });

  it('rejects an empty change, empty additional_scopes and a non-UUID id', async () => {
    const { updateModeToolConfig, getModeToolConfig, mode } = await setup();
    await expect(failedFields(updateModeToolConfig.execute({ actor: admin, id: mode.id }))).resolves.toEqual(['body']);
    const emptied = updateModeToolConfig.execute({ actor: admin, id: mode.id, additionalScopes: [] });
    await expect(failedFields(emptied)).resolves.toEqual(['additional_scopes']);
    const nulled = updateModeToolConfig.execute({ actor: admin, id: mode.id, mode: '', additionalScopes: untyped(null) });
    await expect(failedFields(nulled)).resolves.toEqual(['mode', 'additional_scopes']);
    await expect(failedFields(updateModeToolConfig.execute({ actor: admin, id: 'x', mode: 'y' }))).resolves.toEqual(['id']);
    expect((await getModeToolConfig.execute({ id: mode.id })).additionalScopes.isFullAccess).toBe(false);
  });

  it('answers Conflict when renaming onto another mode and NotFound for an unknown id', async () => {
    const { updateModeToolConfig, createModeToolConfig, mode } = await setup();
    await createModeToolConfig.execute({ actor: admin, mode: 'build', additionalScopes: ['agents:write'] });
    await expect(updateModeToolConfig.execute({ actor: admin, id: mode.id, mode: 'build' })).rejects.toBeInstanceOf(ConflictError);
    const unknown = updateModeToolConfig.execute({ actor: admin, id: randomUUID(), mode: 'other' });
    await expect(unknown).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('DeleteModeToolConfig', () => {
  it('removes the mode and its sessions; a second delete answers NotFound', async () => {
    const { deleteModeToolConfig, getModeToolConfig, createAgentRole, startModeSession, getModeSession, mode } = await setup();
    const role = await createAgentRole.execute({ actor: admin, name: 'coder', platformScopes: ['agents:read'] });
    const { session } = await startModeSession.execute({ actor: user, agentRoleId: role.id, mode: 'review' });
    await deleteModeToolConfig.execute({ actor: admin, id: mode.id });
    await expect(getModeToolConfig.execute({ id: mode.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(getModeSession.execute({ actor: user, id: session.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(deleteModeToolConfig.execute({ actor: admin, id: mode.id })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('is for admins only and keeps the mode otherwise', async () => {
    const { deleteModeToolConfig, modes, mode } = await setup();
    await expect(deleteModeToolConfig.execute({ actor: user, id: mode.id })).rejects.toBeInstanceOf(ForbiddenError);
    expect(modes.rows.has(mode.id)).toBe(true);
  });
});
