import { AuthorizeToolCall } from '../../../../../../src/application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { FakeExternalTools } from '../../../../../fakes/fake-external-tools';
import { ScopeSetMother } from '../../../../../mothers/scope-set.mother';

function makeSut() {
  const external = new FakeExternalTools();
  const files = external.add('u', 'files__read', ['projects:read', 'chat:write']);
  const sut = new AuthorizeToolCall(external);
  const decide = (scopes: string[], name: string, args?: Record<string, unknown>) =>
    sut.execute({ userId: 'u', scopes: ScopeSetMother.of(...scopes), name, arguments: args });
  return { external, files, decide };
}

describe('AuthorizeToolCall', () => {
  it('needs <resource>:read for read actions and <resource>:write for the others, whatever the subresource', async () => {
    const { decide } = makeSut();
    const allowed = { kind: 'allowed', target: { kind: 'built-in', resource: 'agents' } };
    expect(await decide(['agents:read'], 'agents', { action: 'get', subresource: 'prompt' })).toEqual(allowed);
    expect(await decide(['agents:read'], 'agents', { action: 'assign', subresource: 'mcp' })).toEqual({
      kind: 'denied',
      scopes: ['agents:write'],
      required: ['agents:write'],
    });
    expect(await decide(['agents:write'], 'agents', { action: 'assign', subresource: 'mcp' })).toEqual(allowed);
    for (const action of ['get', 'list', 'search', 'query'])
      expect((await decide(['models:read'], 'models', { action })).kind).toBe('allowed');
    for (const action of ['create', 'update', 'delete', 'assign', 'unassign', 'execute']) {
      expect(await decide(['models:read'], 'models', { action })).toEqual({
        kind: 'denied',
        scopes: ['models:write'],
        required: ['models:write'],
      });
    }
  });

  it('needs the tool to be visible (<resource>:read) when the action is missing or unknown', async () => {
    const { decide } = makeSut();
    expect(await decide(['chat:read'], 'models', {})).toEqual({ kind: 'denied', scopes: ['models:read'], required: ['models:read'] });
    expect(await decide(['models:read'], 'models', { action: 'explode' })).toMatchObject({ kind: 'allowed' });
    expect(await decide(['models:read'], 'models')).toMatchObject({ kind: 'allowed' });
  });

  it('allows everything to full access and nothing across resources', async () => {
    const { decide } = makeSut();
    expect(await decide([], 'routines', { action: 'delete' })).toMatchObject({ kind: 'allowed' });
    expect(await decide(['projects:write'], 'routines', { action: 'list' })).toEqual({
      kind: 'denied',
      scopes: ['routines:read'],
      required: ['routines:read'],
    });
  });

  it('resolves other names through ExternalTools once and names every missing scope, and every scope the call needs', async () => {
    const { external, files, decide } = makeSut();
    expect(await decide(['projects:read'], 'files__read')).toEqual({
      kind: 'denied',
      scopes: ['chat:write'],
      required: ['projects:read', 'chat:write'],
    });
    expect(await decide(['projects:write', 'chat:write'], 'files__read')).toEqual({
      kind: 'allowed',
      target: { kind: 'external', tool: files },
    });
    expect(await decide([], 'nothing__here')).toEqual({ kind: 'unknown' });
    expect(external.resolved).toEqual(['files__read', 'files__read', 'nothing__here']);
  });

  it('does not ask ExternalTools about a built-in tool', async () => {
    const { external, decide } = makeSut();
    await decide([], 'projects', { action: 'list' });
    expect(external.resolved).toEqual([]);
  });
});
