import { SCOPE_CATALOG, ScopeSet } from '../../domain/scope';

/**
 * Every catalog scope a set grants, in catalog order: a `:write` brings its
 * `:read`, and full access is all twelve. A resource server that tests
 * membership in this list then agrees with the scope rules of spec 4.5.
 */
export function grantedScopes(scopes: ScopeSet): string[] {
  return SCOPE_CATALOG.filter(({ scope }) => scopes.allows(scope)).map(({ scope }) => scope);
}
