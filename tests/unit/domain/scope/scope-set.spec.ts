import { ValidationError } from '../../../../src/domain/errors';
import { Scope, ScopeSet, SCOPE_CATALOG } from '../../../../src/domain/scope';

const ALL = SCOPE_CATALOG.map((s) => s.scope);
const set = (...values: string[]) => ScopeSet.of(values.map((v) => Scope.parse(v)));

function parseErrors(values: unknown, field?: string) {
  try {
    ScopeSet.parse(values, field);
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('ScopeSet rules (spec 4.5)', () => {
  it('rule 1: an empty scope array grants every scope', () => {
    const empty = ScopeSet.of([]);
    expect(empty.isFullAccess).toBe(true);
    expect(empty.toArray()).toEqual([]);
    for (const scope of ALL) expect(empty.allows(scope)).toBe(true);
    expect(ScopeSet.full().allows('chat:write')).toBe(true);
  });

  it('rule 2: a held scope grants itself, as a string or a Scope', () => {
    const s = set('projects:read', 'models:write');
    expect(s.isFullAccess).toBe(false);
    expect(s.allows('projects:read')).toBe(true);
    expect(s.allows(Scope.parse('projects:read'))).toBe(true);
    expect(s.allows('models:write')).toBe(true);
  });

  it('rule 3: resource:write grants resource:read', () => {
    const s = set('agents:write');
    expect(s.allows('agents:read')).toBe(true);
    expect(s.allows(Scope.of('agents', 'read'))).toBe(true);
  });

  it('a read scope never grants write', () => {
    const s = set('agents:read', 'chat:read');
    expect(s.allows('agents:write')).toBe(false);
    expect(s.allows('chat:write')).toBe(false);
  });

  it("a write scope never grants another resource's scopes", () => {
    const s = set('agents:write');
    const others = ALL.filter((v) => !v.startsWith('agents:'));
    for (const scope of others) expect(s.allows(scope)).toBe(false);
  });

  it('rule 4: anything else is denied, including strings outside the catalog', () => {
    const s = set('routines:read');
    expect(s.allows('projects:read')).toBe(false);
    expect(s.allows('routines:admin')).toBe(false);
    expect(s.allows('')).toBe(false);
  });

  it('toArray returns the held scopes, not the implied ones, without duplicates', () => {
    expect(set('agents:write', 'chat:read', 'agents:write').toArray()).toEqual(['agents:write', 'chat:read']);
  });

  it('fromTrusted rebuilds a set from stored strings', () => {
    const s = ScopeSet.fromTrusted(['mcp_servers:write']);
    expect(s.toArray()).toEqual(['mcp_servers:write']);
    expect(s.allows('mcp_servers:read')).toBe(true);
    expect(s.allows('models:read')).toBe(false);
    expect(ScopeSet.fromTrusted([]).isFullAccess).toBe(true);
  });
});

describe('ScopeSet.parse', () => {
  it('accepts a valid array and keeps its order', () => {
    const s = ScopeSet.parse(['chat:write', 'agents:read']);
    expect(s.toArray()).toEqual(['chat:write', 'agents:read']);
    expect(s.allows('projects:read')).toBe(false);
  });

  it('treats an empty array, undefined and null as full access', () => {
    expect(ScopeSet.parse([]).isFullAccess).toBe(true);
    expect(ScopeSet.parse(undefined).isFullAccess).toBe(true);
    expect(ScopeSet.parse(null).isFullAccess).toBe(true);
  });

  it.each(['agents:read', { 0: 'agents:read' }, 7, true])('rejects the non-array %p on the field itself', (value) => {
    expect(parseErrors(value)).toEqual([{ field: 'scopes', message: expect.stringContaining('array') }]);
  });

  it('names the index and the value of a malformed entry', () => {
    expect(parseErrors(['agents:read', 'agents-read'])).toEqual([
      { field: 'scopes[1]', message: expect.stringContaining('"agents-read"') },
    ]);
  });

  it('names the index and the value of an unknown scope', () => {
    expect(parseErrors(['users:write'])).toEqual([{ field: 'scopes[0]', message: '"users:write" is not a known scope' }]);
  });

  it('reports non-string entries', () => {
    expect(parseErrors(['chat:read', 5])).toEqual([{ field: 'scopes[1]', message: expect.stringContaining('must be a string') }]);
  });

  it('rejects duplicates at the index of the repeat', () => {
    expect(parseErrors(['models:read', 'chat:read', 'models:read'])).toEqual([
      { field: 'scopes[2]', message: '"models:read" is listed more than once' },
    ]);
  });

  it('checks the length before any entry: 520,000 entries are one error on the field', () => {
    const errors = parseErrors(new Array(520_000).fill(0), 'agent_scopes');
    expect(errors).toEqual([{ field: 'agent_scopes', message: 'must hold at most 12 scopes, the whole catalog; it holds 520000' }]);
  });

  it('accepts the whole catalog, 12 scopes, and refuses a 13th entry', () => {
    expect(ScopeSet.parse(ALL).toArray()).toEqual(ALL);
    expect(parseErrors([...ALL, 'agents:read'])).toEqual([{ field: 'scopes', message: expect.stringContaining('at most 12') }]);
  });

  it('quotes at most 64 characters of a bad value', () => {
    const [error] = parseErrors(['x'.repeat(100_000)]);
    expect(error.message).toBe(`"${'x'.repeat(63)}…" is not of the form resource:read or resource:write`);
  });

  it('describes a nested entry by its kind instead of serialising it', () => {
    let deep: unknown = [];
    for (let i = 0; i < 30_000; i++) deep = [deep];
    expect(parseErrors([deep])).toEqual([{ field: 'scopes[0]', message: 'scope must be a string, got an array' }]);
  });

  it('reports every bad entry at once, under a custom field name', () => {
    const errors = parseErrors(['x', 'agents:read', 'nope:read', 'agents:read'], 'platform_scopes');
    expect(errors.map((e) => e.field)).toEqual(['platform_scopes[0]', 'platform_scopes[2]', 'platform_scopes[3]']);
  });
});

describe("ScopeSet.exactly (an access token's grant)", () => {
  it("grants nothing when nothing is held, unlike the spec's empty array", () => {
    const none = ScopeSet.exactly([]);
    expect(none.isFullAccess).toBe(false);
    expect(none.grantsNothing).toBe(true);
    expect(ALL.filter((s) => none.allows(s))).toEqual([]);
  });

  it('grants what it holds by the same rules as any set', () => {
    const held = ScopeSet.exactly([Scope.parse('projects:write'), Scope.parse('projects:write')]);
    expect(ALL.filter((s) => held.allows(s))).toEqual(['projects:read', 'projects:write']);
    expect(held.toArray()).toEqual(['projects:write']);
  });
});
