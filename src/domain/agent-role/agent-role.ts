import { ValidationError } from '../errors';
import { ScopeSet } from '../scope';
import { parseLabel, parseOptionalText } from '../text-field';

export const MAX_ROLE_NAME_LENGTH = 100;
export const MAX_DESCRIPTION_LENGTH = 2000;

/**
 * An agent role (spec 2.4). Its platform_scopes decide which MCP tools the
 * worker makes available to the agent, with the same rules as key scopes:
 * an empty array is full access.
 */
export interface AgentRole {
  id: string;
  name: string;
  description: string;
  platformScopes: ScopeSet;
  isSystem: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export function parseRoleName(value: unknown): string {
  return parseLabel(value, 'name', MAX_ROLE_NAME_LENGTH);
}

export function parseDescription(value: unknown): string {
  return parseOptionalText(value, 'description', MAX_DESCRIPTION_LENGTH);
}

/**
 * Required, and null is refused rather than read as [] (full access): a role
 * created or patched without its scopes once silently got everything
 * (hardening issue, row 12). Widening a role to everything must be spelled out.
 */
export function parsePlatformScopes(value: unknown): ScopeSet {
  if (value === undefined || value === null) {
    throw ValidationError.single('platform_scopes', 'is required: an array of scopes ([] means full access)');
  }
  return ScopeSet.parse(value, 'platform_scopes');
}
