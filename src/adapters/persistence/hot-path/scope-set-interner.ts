import { ScopeSet } from '../../../domain/scope';

/**
 * Hands out one ScopeSet per distinct set of scopes, so that 100,000 cached
 * keys holding the same three scopes share one set (with its lookup table)
 * instead of holding 100,000 copies. ScopeSets never change, so sharing is
 * safe. Bounded: past `maxSets` distinct sets a key keeps its own.
 */
export class ScopeSetInterner {
  private readonly sets = new Map<string, ScopeSet>();

  constructor(private readonly maxSets = 1024) {}

  get size(): number {
    return this.sets.size;
  }

  intern(scopes: ScopeSet): ScopeSet {
    // A set that grants nothing has no array form; stored keys never hold one, but it would not be shared anyway.
    if (scopes.grantsNothing) return scopes;
    const name = scopes.isFullAccess ? '*' : scopes.toArray().join(' ');
    const known = this.sets.get(name);
    if (known) return known;
    if (this.sets.size < this.maxSets) this.sets.set(name, scopes);
    return scopes;
  }
}
