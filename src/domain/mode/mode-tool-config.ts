import { ValidationError } from '../errors';
import { ScopeSet } from '../scope';
import { parseLabel } from '../text-field';

export const MAX_MODE_NAME_LENGTH = 64;

/**
 * ModeToolConfig (spec 2.4): scopes added to a role's platform_scopes while a
 * session of this mode is active.
 */
export interface ModeToolConfig {
  id: string;
  mode: string;
  additionalScopes: ScopeSet;
  createdAt: Date;
  updatedAt: Date;
}

export function parseModeName(value: unknown, field = 'mode'): string {
  return parseLabel(value, field, MAX_MODE_NAME_LENGTH);
}

/**
 * A mode must add at least one scope. By the spec's rules an empty array means
 * full access, and a merge with full access is full access; a mode config
 * saved with nothing in it would silently grant everything.
 */
export function parseAdditionalScopes(value: unknown): ScopeSet {
  const scopes = ScopeSet.parse(value ?? [], 'additional_scopes');
  if (scopes.isFullAccess) {
    throw ValidationError.single('additional_scopes', 'must list at least one scope (an empty array would mean full access)');
  }
  return scopes;
}
