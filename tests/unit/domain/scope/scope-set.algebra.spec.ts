import fc from 'fast-check';
import { Scope, SCOPE_CATALOG, ScopeSet } from '../../../../src/domain/scope';

const ALL = SCOPE_CATALOG.map((s) => s.scope);
const RUNS = { numRuns: 1000 };
const set = (...values: string[]) => ScopeSet.of(values.map((v) => Scope.parse(v)));

/** Any scope set the spec can express: a subset of the catalog (empty = full access). */
const anySet = fc.subarray(ALL).map((values) => set(...values));
/** A narrowed set may also grant nothing; include such sets as inputs too. */
const anyNarrowed = fc.tuple(anySet, anySet).map(([a, b]) => a.narrow(b));
const anyInput = fc.oneof(anySet, anyNarrowed);

/** Spec 4.5 as an oracle over plain arrays. */
function oracle(held: string[], scope: string): boolean {
  if (held.length === 0) return true;
  if (held.includes(scope)) return true;
  return scope.endsWith(':read') && held.includes(scope.replace(/:read$/, ':write'));
}

describe('ScopeSet algebra (property tests, 1,000 runs per law)', () => {
  it('allows(S) follows the four rules of spec 4.5', () => {
    fc.assert(
      fc.property(fc.subarray(ALL), fc.constantFrom(...ALL), (held, scope) => {
        expect(set(...held).allows(scope)).toBe(oracle(held, scope));
      }),
      RUNS,
    );
  });

  it('merge(a, b) allows S iff a or b allows S', () => {
    fc.assert(
      fc.property(anyInput, anyInput, fc.constantFrom(...ALL), (a, b, scope) => {
        expect(a.merge(b).allows(scope)).toBe(a.allows(scope) || b.allows(scope));
      }),
      RUNS,
    );
  });

  it('merging with an empty (full-access) set stays full access', () => {
    fc.assert(
      fc.property(anyInput, (a) => {
        expect(a.merge(ScopeSet.of([])).isFullAccess).toBe(true);
        expect(ScopeSet.of([]).merge(a).isFullAccess).toBe(true);
      }),
      RUNS,
    );
  });

  it('narrow(a, b) allows S iff a and b both allow S', () => {
    fc.assert(
      fc.property(anyInput, anyInput, fc.constantFrom(...ALL), (a, b, scope) => {
        expect(a.narrow(b).allows(scope)).toBe(a.allows(scope) && b.allows(scope));
      }),
      RUNS,
    );
  });

  it('narrowing by an empty (full-access) set changes nothing', () => {
    fc.assert(
      fc.property(anyInput, fc.constantFrom(...ALL), (a, scope) => {
        expect(a.narrow(ScopeSet.of([])).allows(scope)).toBe(a.allows(scope));
      }),
      RUNS,
    );
  });
});

describe('ScopeSet merge and narrow examples', () => {
  it('a key with agents:write narrowed by agents:read allows only agents:read', () => {
    const n = set('agents:write').narrow(set('agents:read'));
    expect(n.toArray()).toEqual(['agents:read']);
    expect(n.allows('agents:write')).toBe(false);
  });

  it('a key with agents:read narrowed by agents:write allows only agents:read', () => {
    expect(set('agents:read').narrow(set('agents:write')).toArray()).toEqual(['agents:read']);
  });

  it('two writes narrow to the write', () => {
    expect(set('chat:write', 'models:read').narrow(set('chat:write')).toArray()).toEqual(['chat:write']);
  });

  it('disjoint sets narrow to a set that grants nothing and has no array form', () => {
    const n = set('chat:read').narrow(set('models:read'));
    expect(n.grantsNothing).toBe(true);
    expect(n.isFullAccess).toBe(false);
    for (const scope of ALL) expect(n.allows(scope)).toBe(false);
    expect(() => n.toArray()).toThrow(/no array form/);
  });

  it('a mode grants write the role lacks', () => {
    const merged = set('projects:read').merge(set('projects:write'));
    expect(merged.allows('projects:write')).toBe(true);
    expect(merged.toArray()).toEqual(['projects:read', 'projects:write']);
  });
});
