import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../../../../src/domain/errors';
import { ActorMother } from '../../../mothers/actor.mother';
import { caught, failedFields, makeScopeContextService } from '../../../support/scope-context-service';
import { untyped } from '../../../support/untyped';

const admin = ActorMother.admin();
const worker = ActorMother.user();

async function setup() {
  const service = makeScopeContextService();
  const role = await service.createAgentRole.execute({ actor: admin, name: 'planner', platformScopes: ['projects:write', 'agents:read'] });
  const mode = await service.createModeToolConfig.execute({ actor: admin, mode: 'hire', additionalScopes: ['agents:write'] });
  const { session } = await service.startModeSession.execute({ actor: worker, agentRoleId: role.id, mode: 'hire' });
  const resolve = (modeSessionId?: unknown, agentRoleId: unknown = role.id, actor = worker) =>
    service.resolveAgentScopes.execute({ actor, agentRoleId: untyped(agentRoleId), modeSessionId: untyped(modeSessionId) });
  return { ...service, role, mode, session, resolve };
}

describe('ResolveAgentScopes', () => {
  it("gives the role's own scopes without a session", async () => {
    const { resolve, role } = await setup();
    const resolved = await resolve();
    expect(resolved).toMatchObject({ agentRoleId: role.id, modeSessionId: null });
    expect(resolved.effectiveScopes.toArray()).toEqual(['projects:write', 'agents:read']);
    expect((await resolve(null)).modeSessionId).toBeNull();
  });

  it('lets an active mode grant a write the role lacks, and only while the session is active', async () => {
    const { resolve, endModeSession, session } = await setup();
    expect((await resolve()).effectiveScopes.allows('agents:write')).toBe(false);
    const during = await resolve(session.id);
    expect(during.modeSessionId).toBe(session.id);
    expect(during.effectiveScopes.allows('agents:write')).toBe(true);
    expect(during.effectiveScopes.allows('projects:write')).toBe(true);
    expect(during.effectiveScopes.allows('models:read')).toBe(false);
    await endModeSession.execute({ actor: worker, id: session.id });
    await expect(resolve(session.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await resolve()).effectiveScopes.allows('agents:write')).toBe(false);
  });

  it('keeps a role with empty platform_scopes at full access under any mode', async () => {
    const { createAgentRole, startModeSession, resolve } = await setup();
    const root = await createAgentRole.execute({ actor: admin, name: 'root', platformScopes: [] });
    const { session } = await startModeSession.execute({ actor: worker, agentRoleId: root.id, mode: 'hire' });
    expect((await resolve(undefined, root.id)).effectiveScopes.isFullAccess).toBe(true);
    expect((await resolve(session.id, root.id)).effectiveScopes.isFullAccess).toBe(true);
  });

  it('rejects a session of another role on mode_session_id', async () => {
    const { createAgentRole, resolve, session } = await setup();
    const other = await createAgentRole.execute({ actor: admin, name: 'observer', platformScopes: ['chat:read'] });
    await expect(failedFields(resolve(session.id, other.id))).resolves.toEqual(['mode_session_id']);
  });

  it('applies edits to the role and the mode at once to an active session', async () => {
    const { resolve, updateAgentRole, updateModeToolConfig, session, role, mode } = await setup();
    await updateAgentRole.execute({ actor: admin, id: role.id, platformScopes: ['chat:read'] });
    await updateModeToolConfig.execute({ actor: admin, id: mode.id, additionalScopes: ['models:write'] });
    const scopes = (await resolve(session.id)).effectiveScopes;
    expect([...scopes.toArray()].sort()).toEqual(['chat:read', 'models:write']);
    expect(scopes.allows('agents:write')).toBe(false);
    expect(scopes.allows('projects:write')).toBe(false);
  });

  it("hides another user's session from a non-admin, not from an admin", async () => {
    const { resolve, session, role } = await setup();
    await expect(resolve(session.id, role.id, ActorMother.user())).rejects.toBeInstanceOf(NotFoundError);
    await expect(resolve(session.id, role.id, admin)).resolves.toMatchObject({ modeSessionId: session.id });
  });

  it('answers NotFound for an unknown role or session', async () => {
    const { resolve } = await setup();
    const error = await caught(resolve(undefined, randomUUID()));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).resource).toBe('agent role');
    await expect(resolve(randomUUID())).rejects.toBeInstanceOf(NotFoundError);
  });

  it('names a non-UUID agent_role_id or mode_session_id', async () => {
    const { resolve } = await setup();
    await expect(failedFields(resolve(undefined, 'planner'))).resolves.toEqual(['agent_role_id']);
    await expect(failedFields(resolve('hire'))).resolves.toEqual(['mode_session_id']);
  });
});
