import { ScopeSet } from '../../src/domain/scope';

/** Scope sets as tests need them, named for what they grant. */
export const ScopeSetMother = {
  /** The spec's empty array: everything. */
  full(): ScopeSet {
    return ScopeSet.full();
  },
  of(...scopes: string[]): ScopeSet {
    return ScopeSet.parse(scopes);
  },
  /** Every `:read` of the catalog, as the seeded observer role holds. */
  readOnly(): ScopeSet {
    return ScopeSet.parse(['agents:read', 'projects:read', 'routines:read', 'mcp_servers:read', 'chat:read', 'models:read']);
  },
  /** What narrowing two disjoint sets gives: a set that grants nothing and has no array form. */
  nothing(): ScopeSet {
    return ScopeSet.parse(['chat:read']).narrow(ScopeSet.parse(['models:read']));
  },
};
