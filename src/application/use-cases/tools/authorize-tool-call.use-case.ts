import { isResource, Resource, ScopeSet } from '../../../domain/scope';
import { ACTIONS, requiredScopeFor } from '../../../domain/tool';

export interface AuthorizeToolCallInput {
  userId: string;
  scopes: ScopeSet;
  name: string;
  arguments?: Record<string, unknown>;
}

export type ToolCallDecision =
  | { kind: 'allowed' }
  | { kind: 'denied'; scopes: string[] }
  | { kind: 'unknown' };

/** Scopes an external tool needs, found by its namespaced name; null when no such tool exists. */
export type ExternalToolScopes = (userId: string, name: string) => Promise<string[] | null>;

/**
 * Decides, before anything runs, whether a caller may call a tool with these
 * arguments. Built-in tools: the action decides (spec 4.4: read actions need
 * `<resource>:read`, all others `<resource>:write`, whatever the subresource);
 * an action that is missing or unknown still needs the tool to be visible, so
 * `<resource>:read`, and then fails as a tool error.
 */
export class AuthorizeToolCall {
  constructor(private readonly externalScopes: ExternalToolScopes = async () => null) {}

  async execute(input: AuthorizeToolCallInput): Promise<ToolCallDecision> {
    const needed = isResource(input.name)
      ? [scopeForBuiltIn(input.name, input.arguments?.action)]
      : await this.externalScopes(input.userId, input.name);
    if (needed === null) return { kind: 'unknown' };
    const missing = needed.filter((scope) => !input.scopes.allows(scope));
    return missing.length === 0 ? { kind: 'allowed' } : { kind: 'denied', scopes: missing };
  }
}

function scopeForBuiltIn(resource: Resource, action: unknown): string {
  const known = typeof action === 'string' && (ACTIONS as readonly string[]).includes(action);
  return known ? requiredScopeFor(resource, action) : `${resource}:read`;
}
