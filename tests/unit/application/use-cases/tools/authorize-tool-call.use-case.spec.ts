import { AuthorizeToolCall } from '../../../../../src/application/use-cases/tools/authorize-tool-call.use-case';
import { ScopeSet } from '../../../../../src/domain/scope';

const authorize = new AuthorizeToolCall(async (_user, name) => (name === 'files__read' ? ['projects:read', 'chat:write'] : null));
const decide = (scopes: string[], name: string, args?: Record<string, unknown>) =>
  authorize.execute({ userId: 'u', scopes: ScopeSet.parse(scopes), name, arguments: args });

describe('AuthorizeToolCall', () => {
  it('needs <resource>:read for read actions and <resource>:write for the others, whatever the subresource', async () => {
    expect(await decide(['agents:read'], 'agents', { action: 'get', subresource: 'prompt' })).toEqual({ kind: 'allowed' });
    expect(await decide(['agents:read'], 'agents', { action: 'assign', subresource: 'mcp' })).toEqual({ kind: 'denied', scopes: ['agents:write'] });
    expect(await decide(['agents:write'], 'agents', { action: 'assign', subresource: 'mcp' })).toEqual({ kind: 'allowed' });
    for (const action of ['get', 'list', 'search', 'query']) expect((await decide(['models:read'], 'models', { action })).kind).toBe('allowed');
    for (const action of ['create', 'update', 'delete', 'assign', 'unassign', 'execute']) {
      expect(await decide(['models:read'], 'models', { action })).toEqual({ kind: 'denied', scopes: ['models:write'] });
    }
  });

  it('needs the tool to be visible (<resource>:read) when the action is missing or unknown', async () => {
    expect(await decide(['chat:read'], 'models', {})).toEqual({ kind: 'denied', scopes: ['models:read'] });
    expect(await decide(['models:read'], 'models', { action: 'explode' })).toEqual({ kind: 'allowed' });
    expect(await decide(['models:read'], 'models')).toEqual({ kind: 'allowed' });
  });

  it('allows everything to full access and nothing across resources', async () => {
    expect(await decide([], 'routines', { action: 'delete' })).toEqual({ kind: 'allowed' });
    expect(await decide(['projects:write'], 'routines', { action: 'list' })).toEqual({ kind: 'denied', scopes: ['routines:read'] });
  });

  it('asks the external catalog for other names and names every missing scope', async () => {
    expect(await decide(['projects:read'], 'files__read')).toEqual({ kind: 'denied', scopes: ['chat:write'] });
    expect(await decide(['projects:write', 'chat:write'], 'files__read')).toEqual({ kind: 'allowed' });
    expect(await decide([], 'nothing__here')).toEqual({ kind: 'unknown' });
  });
});
