import fc from 'fast-check';
import { Scope, ScopeSet, SCOPE_CATALOG } from '../../../../src/domain/scope';

const CATALOG = SCOPE_CATALOG.map((s) => s.scope);

/** Spec 4.5, written independently of the implementation. */
function oracle(held: readonly string[], requested: string): boolean {
  if (held.length === 0) return true;
  if (held.includes(requested)) return true;
  if (requested.endsWith(':read')) {
    const write = `${requested.slice(0, -':read'.length)}:write`;
    if (held.includes(write)) return true;
  }
  return false;
}

const heldScopes = fc.shuffledSubarray(CATALOG);
const requested = fc.oneof(fc.constantFrom(...CATALOG), fc.constantFrom('users:read', 'agents:admin', 'agents', '', 'AGENTS:READ'));

describe('ScopeSet.allows (property)', () => {
  it('agrees with the spec 4.5 oracle for any subset of the catalog', () => {
    fc.assert(
      fc.property(heldScopes, requested, (held, scope) => {
        const set = ScopeSet.of(held.map((v) => Scope.parse(v)));
        expect(set.allows(scope)).toBe(oracle(held, scope));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with the oracle on every catalog scope, via ScopeSet.parse', () => {
    fc.assert(
      fc.property(heldScopes, (held) => {
        const set = ScopeSet.parse(held);
        for (const scope of CATALOG) {
          expect(set.allows(Scope.parse(scope))).toBe(oracle(held, scope));
        }
        expect(set.isFullAccess).toBe(held.length === 0);
        expect([...set.toArray()].sort()).toEqual([...held].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('granting more scopes never takes access away', () => {
    fc.assert(
      fc.property(fc.subarray(CATALOG, { minLength: 1 }), fc.constantFrom(...CATALOG), (held, extra) => {
        const smaller = ScopeSet.fromTrusted(held);
        const larger = ScopeSet.fromTrusted([...held, extra]);
        for (const scope of CATALOG) {
          if (smaller.allows(scope)) expect(larger.allows(scope)).toBe(true);
        }
      }),
    );
  });
});
