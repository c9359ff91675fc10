import { RESOURCES } from '../../../../src/domain/scope';
import { isReadAction, READ_ACTIONS, requiredScopeFor, WRITE_ACTIONS } from '../../../../src/domain/tool';

describe('requiredScopeFor', () => {
  it.each(['get', 'list', 'search', 'query'])('needs :read for the read action %s', (action) => {
    expect(isReadAction(action)).toBe(true);
    expect(requiredScopeFor('projects', action)).toBe('projects:read');
  });

  it.each(['create', 'update', 'delete', 'assign', 'unassign', 'execute'])('needs :write for the write action %s', (action) => {
    expect(isReadAction(action)).toBe(false);
    expect(requiredScopeFor('routines', action)).toBe('routines:write');
  });

  it('treats an unknown action as a write, never as a read', () => {
    expect(requiredScopeFor('chat', 'frobnicate')).toBe('chat:write');
    expect(requiredScopeFor('chat', 'GET')).toBe('chat:write');
  });

  it('uses the top-level resource only (spec 4.4 examples)', () => {
    // Reading an agent prompt needs agents:read; assigning an MCP server to an agent needs agents:write.
    expect(requiredScopeFor('agents', 'get')).toBe('agents:read');
    expect(requiredScopeFor('agents', 'assign')).toBe('agents:write');
  });

  it('maps every resource and action to a scope of that resource', () => {
    for (const resource of RESOURCES) {
      for (const action of READ_ACTIONS) expect(requiredScopeFor(resource, action)).toBe(`${resource}:read`);
      for (const action of WRITE_ACTIONS) expect(requiredScopeFor(resource, action)).toBe(`${resource}:write`);
    }
  });
});
