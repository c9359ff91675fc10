import { ValidationError } from '../../../../src/domain/errors';
import { PERMISSIONS, RESOURCES, Scope, SCOPE_CATALOG } from '../../../../src/domain/scope';

const SPEC_SCOPES = [
  'agents:read',
  'agents:write',
  'projects:read',
  'projects:write',
  'routines:read',
  'routines:write',
  'mcp_servers:read',
  'mcp_servers:write',
  'chat:read',
  'chat:write',
  'models:read',
  'models:write',
];

function validationErrorOf(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('SCOPE_CATALOG', () => {
  it('holds exactly the 12 scopes of spec 2.3', () => {
    expect(SCOPE_CATALOG.map((s) => s.scope).sort()).toEqual([...SPEC_SCOPES].sort());
    expect(SCOPE_CATALOG).toHaveLength(12);
  });

  it('has one read and one write scope per resource group, each with a description', () => {
    expect(RESOURCES).toHaveLength(6);
    for (const resource of RESOURCES) {
      const entries = SCOPE_CATALOG.filter((s) => s.resource === resource);
      expect(entries.map((s) => s.permission).sort()).toEqual([...PERMISSIONS].sort());
    }
    for (const entry of SCOPE_CATALOG) {
      expect(entry.scope).toBe(`${entry.resource}:${entry.permission}`);
      expect(entry.covers).toEqual(expect.any(String));
      expect(entry.covers.length).toBeGreaterThan(0);
    }
  });
});

describe('Scope.parse / Scope.tryParse', () => {
  it.each(SPEC_SCOPES)('accepts catalog scope %s and keeps its parts', (value) => {
    const scope = Scope.parse(value);
    const [resource, permission] = value.split(':');
    expect(scope.value).toBe(value);
    expect(scope.toString()).toBe(value);
    expect(scope.resource).toBe(resource);
    expect(scope.permission).toBe(permission);
    expect(Scope.tryParse(value)?.value).toBe(value);
  });

  it.each([
    'agents',
    'agents:',
    ':read',
    'agents:admin',
    'agents:READ',
    'Agents:read',
    ' agents:read',
    'agents:read ',
    'agents:read:write',
    'agents.read',
    '',
  ])('rejects malformed %j, naming it and the expected form', (value) => {
    expect(Scope.tryParse(value)).toBeNull();
    const error = validationErrorOf(() => Scope.parse(value));
    expect(error.errors).toEqual([{ field: 'scopes', message: expect.stringContaining(`"${value}"`) }]);
    expect(error.errors[0].message).toContain('resource:read or resource:write');
  });

  it.each(['users:read', 'billing:write', 'agent:read', 'mcp_server:write'])(
    'rejects well-formed but unknown %s as not a known scope',
    (value) => {
      expect(Scope.tryParse(value)).toBeNull();
      const error = validationErrorOf(() => Scope.parse(value));
      expect(error.errors).toHaveLength(1);
      expect(error.errors[0].message).toBe(`"${value}" is not a known scope`);
    },
  );

  it.each([
    [42, '42'],
    [null, 'null'],
    [{ a: 1 }, 'an object'],
    [['chat:read'], 'an array'],
    [undefined, 'undefined'],
  ])('rejects the non-string %p and says it must be a string', (value, shown) => {
    expect(Scope.tryParse(value)).toBeNull();
    const error = validationErrorOf(() => Scope.parse(value));
    expect(error.errors[0].message).toContain('must be a string');
    expect(error.errors[0].message).toContain(shown);
  });

  it('uses the given field name in the error', () => {
    const error = validationErrorOf(() => Scope.parse('nope', 'additional_scopes'));
    expect(error.errors[0].field).toBe('additional_scopes');
    expect(error.message).toContain('additional_scopes');
  });

  it('Scope.of builds the same scope as parsing', () => {
    expect(Scope.of('models', 'write').value).toBe('models:write');
  });
});
