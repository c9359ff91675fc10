import { BUILT_IN_TOOLS } from '../../../../../src/application/use-cases/gateway/built-in/built-in-tools';
import { FilterTools } from '../../../../../src/application/use-cases/gateway/filter-tools/filter-tools.use-case';
import { ToolDescriptor } from '../../../../../src/domain/tool';
import { ToolMother } from '../../../../mothers/tool.mother';
import { ScopeSetMother } from '../../../../mothers/scope-set.mother';

const filter = new FilterTools();
const names = (scopes: string[], tools?: readonly ToolDescriptor[]) =>
  filter.execute({ scopes: ScopeSetMother.of(...scopes), tools }).map((t) => t.name);

const tool = (name: string, requiredScopes: string[]): ToolDescriptor => ToolMother.needing(name, ...requiredScopes);

describe('FilterTools over the built-in catalog', () => {
  it('has one tool per resource group', () => {
    expect(BUILT_IN_TOOLS.map((t) => t.name).sort()).toEqual(['agents', 'chat', 'mcp_servers', 'models', 'projects', 'routines']);
  });

  it('shows all 6 tools for empty scopes (full access)', () => {
    expect(names([])).toHaveLength(6);
    expect(filter.execute({ scopes: ScopeSetMother.full() })).toEqual([...BUILT_IN_TOOLS]);
  });

  it('gives a new list each time, in catalog order, which the caller owns', () => {
    const scopes = ScopeSetMother.of('projects:read');
    const list = filter.execute({ scopes });
    expect(filter.execute({ scopes })).not.toBe(list);
    list.push(BUILT_IN_TOOLS[0]);
    expect(filter.execute({ scopes })).toEqual([BUILT_IN_TOOLS.find((t) => t.name === 'projects')]);
    expect(filter.execute({ scopes: ScopeSetMother.of('chat:read', 'projects:read') }).map((t) => t.name)).toEqual(['projects', 'chat']);
  });

  it('shows only the projects tool for projects:read', () => {
    expect(names(['projects:read'])).toEqual(['projects']);
  });

  it('shows the agents tool for agents:write, since write implies read', () => {
    expect(names(['agents:write'])).toEqual(['agents']);
  });

  it('shows the union for several scopes', () => {
    expect(names(['chat:read', 'models:write']).sort()).toEqual(['chat', 'models']);
  });

  it('shows every tool when every write scope is held', () => {
    const writes = ['agents', 'projects', 'routines', 'mcp_servers', 'chat', 'models'].map((r) => `${r}:write`);
    expect(names(writes)).toHaveLength(6);
  });
});

describe('FilterTools over a custom catalog', () => {
  const tools = [
    tool('open', []),
    tool('read-agents', ['agents:read']),
    tool('sync', ['agents:read', 'projects:write']),
    tool('admin', ['models:write', 'mcp_servers:write']),
  ];

  it("requires every one of a tool's scopes", () => {
    expect(names(['agents:read'], tools)).toEqual(['open', 'read-agents']);
    expect(names(['projects:write'], tools)).toEqual(['open']);
    expect(names(['agents:read', 'projects:write'], tools)).toEqual(['open', 'read-agents', 'sync']);
  });

  it('applies the read-from-write rule to each required scope', () => {
    expect(names(['agents:write', 'projects:write'], tools)).toEqual(['open', 'read-agents', 'sync']);
    expect(names(['agents:read', 'projects:read'], tools)).toEqual(['open', 'read-agents']);
  });

  it('hides a tool when only some of its scopes are held', () => {
    expect(names(['models:write'], tools)).not.toContain('admin');
    expect(names(['models:write', 'mcp_servers:write'], tools)).toContain('admin');
  });

  it('shows a tool without required scopes to anyone, and everything to full access', () => {
    expect(names(['chat:read'], tools)).toEqual(['open']);
    expect(names([], tools)).toEqual(['open', 'read-agents', 'sync', 'admin']);
  });

  it('returns an empty list for an empty catalog', () => {
    expect(names(['chat:read'], [])).toEqual([]);
  });
});
