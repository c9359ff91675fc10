import { randomUUID } from 'node:crypto';
import { ConflictError, ForbiddenError } from '../../../../src/domain/errors';
import { ActorMother } from '../../../mothers/actor.mother';
import { caught, makeScopeContextService } from '../../../support/scope-context-service';

const origin = { requestId: 'req-1', ip: '203.0.113.9' };
const admin = { ...ActorMother.admin(), origin };

describe('audit events of roles, mode configurations and sessions', () => {
  it('records agent_role.created, .updated (naming what changed) and .deleted, each for the acting admin', async () => {
    const s = makeScopeContextService();
    const role = await s.createAgentRole.execute({ actor: admin, name: 'reviewer', platformScopes: ['projects:read'] });
    await s.updateAgentRole.execute({ actor: admin, id: role.id, platformScopes: ['projects:write'], description: 'd' });
    await s.deleteAgentRole.execute({ actor: admin, id: role.id });
    expect(s.audit.records.map((r) => r.action)).toEqual(['agent_role.created', 'agent_role.updated', 'agent_role.deleted']);
    expect(s.audit.records[0]).toMatchObject({
      actor: { type: 'user', id: admin.userId },
      userId: admin.userId,
      keyId: null,
      target: { type: 'agent_role', id: role.id },
      requestId: 'req-1',
      ip: '203.0.113.9',
      occurredAt: s.clock.now(),
      details: { name: 'reviewer', platform_scopes: ['projects:read'] },
    });
    expect(s.audit.records[1].details).toEqual({
      name: 'reviewer',
      platform_scopes: ['projects:write'],
      changed: ['description', 'platform_scopes'],
    });
  });

  it('records nothing for a refused change', async () => {
    const s = makeScopeContextService();
    const system = s.roles.seedSystemRole('observer', ['agents:read']);
    expect(await caught(s.deleteAgentRole.execute({ actor: admin, id: system.id }))).toBeInstanceOf(ConflictError);
    expect(await caught(s.createAgentRole.execute({ actor: ActorMother.user(), name: 'x', platformScopes: [] }))).toBeInstanceOf(
      ForbiddenError,
    );
    expect(s.audit.records).toEqual([]);
  });

  it('records mode_tool_config.created, .updated and .deleted', async () => {
    const s = makeScopeContextService();
    const config = await s.createModeToolConfig.execute({ actor: admin, mode: 'deploy', additionalScopes: ['projects:write'] });
    await s.updateModeToolConfig.execute({ actor: admin, id: config.id, mode: 'ship' });
    await s.deleteModeToolConfig.execute({ actor: admin, id: config.id });
    expect(s.audit.records.map((r) => [r.action, r.target, r.details])).toEqual([
      ['mode_tool_config.created', { type: 'mode_tool_config', id: config.id }, { mode: 'deploy', additional_scopes: ['projects:write'] }],
      [
        'mode_tool_config.updated',
        { type: 'mode_tool_config', id: config.id },
        { mode: 'ship', additional_scopes: ['projects:write'], changed: ['mode'] },
      ],
      ['mode_tool_config.deleted', { type: 'mode_tool_config', id: config.id }, { mode: 'ship', additional_scopes: ['projects:write'] }],
    ]);
  });

  it('records mode_session.started and .ended for the user who owns the session', async () => {
    const s = makeScopeContextService();
    const role = await s.createAgentRole.execute({ actor: admin, name: 'dev', platformScopes: ['projects:read'] });
    const config = await s.createModeToolConfig.execute({ actor: admin, mode: 'deploy', additionalScopes: ['projects:write'] });
    const owner = { ...ActorMother.user(), origin };
    const { session } = await s.startModeSession.execute({ actor: owner, agentRoleId: role.id, mode: 'deploy' });
    await s.endModeSession.execute({ actor: owner, id: session.id });
    const [started, ended] = s.audit.records.slice(2);
    const details = { agent_role_id: role.id, mode_tool_config_id: config.id, mode: 'deploy' };
    expect(started).toMatchObject({
      action: 'mode_session.started',
      actor: { type: 'user', id: owner.userId },
      userId: owner.userId,
      target: { type: 'mode_session', id: session.id },
      details,
    });
    expect(ended).toMatchObject({
      action: 'mode_session.ended',
      userId: owner.userId,
      target: { type: 'mode_session', id: session.id },
      details,
    });
  });

  it('records no session start for an unknown mode', async () => {
    const s = makeScopeContextService();
    const role = await s.createAgentRole.execute({ actor: admin, name: 'dev', platformScopes: [] });
    await caught(s.startModeSession.execute({ actor: ActorMother.user(), agentRoleId: role.id, mode: 'nope' }));
    await caught(s.endModeSession.execute({ actor: ActorMother.user(), id: randomUUID() }));
    expect(s.audit.records.map((r) => r.action)).toEqual(['agent_role.created']);
  });
});
