import { randomUUID } from 'node:crypto';
import { BUILT_IN_TOOLS } from '../../../../src/application/use-cases/gateway/built-in/built-in-tools';
import { NotFoundError } from '../../../../src/domain/errors';
import { ToolDescriptor } from '../../../../src/domain/tool';
import { ActorMother } from '../../../mothers/actor.mother';
import { makeScopeContextService } from '../../../support/scope-context-service';
import { ToolMother } from '../../../mothers/tool.mother';
import { untyped } from '../../../support/untyped';

const admin = ActorMother.admin();
const worker = ActorMother.user();

const tool = (name: string, requiredScopes: string[]): ToolDescriptor => ToolMother.needing(name, ...requiredScopes);
const catalog = [
  tool('ping', []),
  tool('list-agents', ['agents:read']),
  tool('hire-agent', ['agents:write']),
  tool('tune-model', ['models:write']),
];

async function setup() {
  const service = makeScopeContextService();
  const role = await service.createAgentRole.execute({ actor: admin, name: 'planner', platformScopes: ['projects:write', 'agents:read'] });
  await service.createModeToolConfig.execute({ actor: admin, mode: 'hire', additionalScopes: ['agents:write', 'chat:read'] });
  const { session } = await service.startModeSession.execute({ actor: worker, agentRoleId: role.id, mode: 'hire' });
  const build = (input: { modeSessionId?: unknown; agentRoleId?: unknown; tools?: readonly ToolDescriptor[] } = {}) =>
    service.buildAgentToolSet.execute(untyped({ actor: worker, agentRoleId: role.id, ...input }));
  const names = async (input?: Parameters<typeof build>[0]) => (await build(input)).tools.map((t) => t.name);
  return { ...service, role, session, build, names };
}

describe('BuildAgentToolSet', () => {
  it("filters the built-in tools by the role's scopes", async () => {
    const { build, names } = await setup();
    expect(await names()).toEqual(['agents', 'projects']);
    expect((await build()).effectiveScopes.toArray()).toEqual(['projects:write', 'agents:read']);
  });

  it('hands the caller a tool set of its own: changing it changes no later one', async () => {
    const { build, names } = await setup();
    const first = await build();
    first.tools.push(tool('smuggled', []));
    first.tools.length = 0;
    expect(await names()).toEqual(['agents', 'projects']);
  });

  it('adds the tools of an active mode session, and drops them when it ends', async () => {
    const { names, endModeSession, session } = await setup();
    expect(await names({ modeSessionId: session.id })).toEqual(['agents', 'projects', 'chat']);
    await endModeSession.execute({ actor: worker, id: session.id });
    await expect(names({ modeSessionId: session.id })).rejects.toBeInstanceOf(NotFoundError);
    expect(await names()).toEqual(['agents', 'projects']);
  });

  it('returns every built-in tool, with descriptions and schemas, for a full-access role', async () => {
    const { createAgentRole, build } = await setup();
    const root = await createAgentRole.execute({ actor: admin, name: 'root', platformScopes: [] });
    const set = await build({ agentRoleId: root.id });
    expect(set.effectiveScopes.isFullAccess).toBe(true);
    expect(set.tools).toEqual([...BUILT_IN_TOOLS]);
  });

  it('filters a custom catalog: a write tool is visible only while the session grants it', async () => {
    const { names, session } = await setup();
    expect(await names({ tools: catalog })).toEqual(['ping', 'list-agents']);
    expect(await names({ tools: catalog, modeSessionId: session.id })).toEqual(['ping', 'list-agents', 'hire-agent']);
  });

  it('gives the same answer as FilterTools over the resolved scopes', async () => {
    const { build, filterTools, resolveAgentScopes, role, session } = await setup();
    const { effectiveScopes } = await resolveAgentScopes.execute({ actor: worker, agentRoleId: role.id, modeSessionId: session.id });
    const set = await build({ modeSessionId: session.id, tools: catalog });
    expect(set.tools).toEqual(filterTools.execute({ scopes: effectiveScopes, tools: catalog }));
  });

  it('answers NotFound for an unknown role', async () => {
    const { build } = await setup();
    await expect(build({ agentRoleId: randomUUID() })).rejects.toBeInstanceOf(NotFoundError);
  });
});
