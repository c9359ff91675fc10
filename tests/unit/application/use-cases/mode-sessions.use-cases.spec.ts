import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../../../../src/domain/errors';
import { ActorMother } from '../../../mothers/actor.mother';
import { failedFields, makeScopeContextService } from '../../../support/scope-context-service';
import { untyped } from '../../../support/untyped';

const admin = ActorMother.admin();
const owner = ActorMother.user();
const stranger = ActorMother.user();

async function setup() {
  const service = makeScopeContextService();
  const role = await service.createAgentRole.execute({ actor: admin, name: 'coder', platformScopes: ['agents:read', 'chat:write'] });
  const mode = await service.createModeToolConfig.execute({
    actor: admin,
    mode: 'build',
    additionalScopes: ['agents:write', 'models:read'],
  });
  const started = await service.startModeSession.execute({ actor: owner, agentRoleId: role.id, mode: 'build' });
  return { ...service, role, mode, started, session: started.session };
}

describe('StartModeSession', () => {
  it('starts an active session owned by the caller, at the clock time', async () => {
    const { session, role, mode, clock } = await setup();
    expect(session).toMatchObject({
      agentRoleId: role.id,
      modeToolConfigId: mode.id,
      mode: 'build',
      userId: owner.userId,
      startedAt: clock.now(),
      endedAt: null,
    });
  });

  it('returns the role merged with the mode as effective scopes', async () => {
    const { started } = await setup();
    expect([...started.effectiveScopes.toArray()].sort()).toEqual(['agents:read', 'agents:write', 'chat:write', 'models:read']);
    expect(started.effectiveScopes.allows('models:write')).toBe(false);
  });

  it('answers NotFound for an unknown role or an unknown mode, and stores nothing', async () => {
    const { startModeSession, sessions, role } = await setup();
    const noRole = startModeSession.execute({ actor: owner, agentRoleId: randomUUID(), mode: 'build' });
    await expect(noRole).rejects.toBeInstanceOf(NotFoundError);
    const noMode = startModeSession.execute({ actor: owner, agentRoleId: role.id, mode: 'debug' });
    await expect(noMode).rejects.toBeInstanceOf(NotFoundError);
    expect(sessions.rows.size).toBe(1);
  });

  it('reports a non-UUID role id and a blank mode together', async () => {
    const { startModeSession } = await setup();
    const work = startModeSession.execute({ actor: owner, agentRoleId: 'coder', mode: ' ' });
    await expect(failedFields(work)).resolves.toEqual(['agent_role_id', 'mode']);
  });
});

describe('GetModeSession', () => {
  it('shows the owner the session and its current effective scopes', async () => {
    const { getModeSession, session } = await setup();
    const view = await getModeSession.execute({ actor: owner, id: session.id.toUpperCase() });
    expect(view.session).toEqual(session);
    expect(view.effectiveScopes.allows('agents:write')).toBe(true);
  });

  it("answers NotFound for another user's session, but shows it to an admin", async () => {
    const { getModeSession, session } = await setup();
    await expect(getModeSession.execute({ actor: stranger, id: session.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(getModeSession.execute({ actor: admin, id: session.id })).resolves.toMatchObject({ session: { id: session.id } });
  });

  it('answers NotFound for an unknown id and ValidationError for a non-UUID', async () => {
    const { getModeSession } = await setup();
    await expect(getModeSession.execute({ actor: owner, id: randomUUID() })).rejects.toBeInstanceOf(NotFoundError);
    await expect(failedFields(getModeSession.execute({ actor: owner, id: 'abc' }))).resolves.toEqual(['id']);
  });

  it('carries the current name of its mode', async () => {
    const { getModeSession, updateModeToolConfig, session, mode } = await setup();
    await updateModeToolConfig.execute({ actor: admin, id: mode.id, mode: 'ship' });
    expect((await getModeSession.execute({ actor: owner, id: session.id })).session.mode).toBe('ship');
  });

  it('answers NotFound once its role is deleted', async () => {
    const { getModeSession, deleteAgentRole, session, role } = await setup();
    await deleteAgentRole.execute({ actor: admin, id: role.id });
    await expect(getModeSession.execute({ actor: owner, id: session.id })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('EndModeSession', () => {
  it('sets endedAt to the clock time; the session then looks unknown everywhere', async () => {
    const { endModeSession, getModeSession, resolveAgentScopes, sessions, clock, session, role } = await setup();
    clock.advance(60_000);
    await endModeSession.execute({ actor: owner, id: session.id });
    expect(sessions.rows.get(session.id)?.endedAt).toEqual(clock.now());
    await expect(getModeSession.execute({ actor: owner, id: session.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(endModeSession.execute({ actor: owner, id: session.id })).rejects.toBeInstanceOf(NotFoundError);
    const resolve = resolveAgentScopes.execute({ actor: owner, agentRoleId: role.id, modeSessionId: session.id });
    await expect(resolve).rejects.toBeInstanceOf(NotFoundError);
  });

  it('keeps the first end time when ended twice', async () => {
    const { endModeSession, sessions, clock, session } = await setup();
    await endModeSession.execute({ actor: owner, id: session.id });
    const firstEnd = sessions.rows.get(session.id)?.endedAt;
    clock.advance(5_000);
    await expect(endModeSession.execute({ actor: admin, id: session.id })).rejects.toBeInstanceOf(NotFoundError);
    expect(sessions.rows.get(session.id)?.endedAt).toEqual(firstEnd);
  });

  it('answers NotFound to another non-admin and leaves the session active', async () => {
    const { endModeSession, getModeSession, session } = await setup();
    await expect(endModeSession.execute({ actor: stranger, id: session.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(getModeSession.execute({ actor: owner, id: session.id })).resolves.toBeDefined();
  });

  it("lets an admin end another user's session", async () => {
    const { endModeSession, sessions, clock, session } = await setup();
    await endModeSession.execute({ actor: admin, id: session.id });
    expect(sessions.rows.get(session.id)?.endedAt).toEqual(clock.now());
  });

  it('only ends the named session', async () => {
    const { endModeSession, startModeSession, getModeSession, session, role } = await setup();
    const other = await startModeSession.execute({ actor: owner, agentRoleId: role.id, mode: 'build' });
    await endModeSession.execute({ actor: owner, id: session.id });
    await expect(getModeSession.execute({ actor: owner, id: other.session.id })).resolves.toBeDefined();
  });

  it('answers NotFound for an unknown id and ValidationError for a non-UUID', async () => {
    const { endModeSession } = await setup();
    await expect(endModeSession.execute({ actor: owner, id: randomUUID() })).rejects.toBeInstanceOf(NotFoundError);
    await expect(failedFields(endModeSession.execute({ actor: owner, id: untyped(null) }))).resolves.toEqual(['id']);
  });
});
