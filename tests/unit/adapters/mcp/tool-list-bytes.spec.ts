import { ToolListBytes } from '../../../../src/adapters/mcp/tool-list-bytes';
import { toMcpTool } from '../../../../src/adapters/mcp/tool-presenter';
import { BUILT_IN_TOOLS } from '../../../../src/application/use-cases/gateway/built-in/built-in-tools';
import { FilterTools } from '../../../../src/application/use-cases/gateway/filter-tools/filter-tools.use-case';
import { ToolDescriptor } from '../../../../src/domain/tool';
import { ScopeSetMother } from '../../../mothers/scope-set.mother';

const filter = new FilterTools();
const external: ToolDescriptor = { name: 'srv__echo', description: 'echo', inputSchema: { type: 'object' }, requiredScopes: [] };
const expected = (tools: readonly ToolDescriptor[]) => `${JSON.stringify(tools.map(toMcpTool))}}}`;

function makeSut() {
  return new ToolListBytes();
}

describe('ToolListBytes', () => {
  it('is the tools array and the closing braces of the answer', () => {
    const tools = filter.execute({ scopes: ScopeSetMother.of('projects:read', 'chat:write') });
    expect(makeSut().of(tools).toString()).toBe(expected(tools));
    expect(makeSut().of([]).toString()).toBe('[]}}');
  });

  it('makes the bytes of a subset of the built-in tools once, whichever list of them asks', () => {
    const sut = makeSut();
    const first = sut.of(filter.execute({ scopes: ScopeSetMother.of('projects:read') }));
    // Another key, and agent_scopes narrowing a wider key, reach the same subset through new arrays.
    expect(sut.of(filter.execute({ scopes: ScopeSetMother.of('projects:write') }))).toBe(first);
    expect(sut.of(filter.execute({ scopes: ScopeSetMother.full().narrow(ScopeSetMother.of('projects:read')) }))).toBe(first);
    expect(sut.of([...BUILT_IN_TOOLS])).not.toBe(first);
    expect(sut.size).toBe(2);
  });

  it('serialises a list with external tools each time and keeps nothing of it', () => {
    const sut = makeSut();
    const tools = [...filter.execute({ scopes: ScopeSetMother.full() }), external];
    const bytes = sut.of(tools);
    expect(bytes.toString()).toBe(expected(tools));
    expect(sut.of(tools)).not.toBe(bytes);
    expect(sut.size).toBe(0);
  });

  it('keeps apart lists of the same built-in tools in another order', () => {
    const sut = makeSut();
    const [a, b] = BUILT_IN_TOOLS;
    expect(sut.of([b, a]).toString()).toBe(expected([b, a]));
    expect(sut.of([a, b]).toString()).toBe(expected([a, b]));
    expect(sut.of([a, a]).toString()).toBe(expected([a, a]));
    expect(sut.size).toBe(1);
  });
});
