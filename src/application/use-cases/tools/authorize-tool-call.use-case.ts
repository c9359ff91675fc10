import { isResource, Resource, ScopeSet } from '../../../domain/scope';
import { ACTIONS, requiredScopeFor } from '../../../domain/tool';
import { ExternalTool, ExternalTools } from '../../ports/external-tools.port';

export interface AuthorizeToolCallInput {
  userId: string;
  scopes: ScopeSet;
  name: string;
  arguments?: Record<string, unknown>;
}

/** What a call runs: a built-in tool's resource group, or a tool of one of the user's upstream servers. */
export type ToolTarget =
  | { kind: 'built-in'; resource: Resource }
  | { kind: 'external'; tool: ExternalTool };

export type ToolCallDecision =
  | { kind: 'allowed'; target: ToolTarget }
  | { kind: 'denied'; scopes: string[] }
  | { kind: 'unknown' };

const UNKNOWN: ToolCallDecision = { kind: 'unknown' };

/**
 * Decides, before anything runs, whether a caller may call a tool with these
 * arguments, and finds what the call runs (CallTool takes it from here, so the
 * tool is looked up once). Built-in tools: the action decides (spec 4.4: read
 * actions need `<resource>:read`, all others `<resource>:write`, whatever the
 * subresource); an action that is missing or unknown still needs the tool to
 * be visible, so `<resource>:read`, and then fails as a tool error. External
 * tools need the scopes their server's record names for them.
 */
export class AuthorizeToolCall {
  constructor(private readonly external: ExternalTools) {}

  async execute(input: AuthorizeToolCallInput): Promise<ToolCallDecision> {
    if (isResource(input.name)) {
      return decide(input.scopes, [scopeForBuiltIn(input.name, input.arguments?.action)], { kind: 'built-in', resource: input.name });
    }
    const tool = await this.external.resolve(input.userId, input.name);
    return tool === null ? UNKNOWN : decide(input.scopes, tool.callScopes, { kind: 'external', tool });
  }
}

function decide(scopes: ScopeSet, needed: readonly string[], target: ToolTarget): ToolCallDecision {
  const missing = needed.filter((scope) => !scopes.allows(scope));
  return missing.length === 0 ? { kind: 'allowed', target } : { kind: 'denied', scopes: missing };
}

function scopeForBuiltIn(resource: Resource, action: unknown): string {
  const known = typeof action === 'string' && (ACTIONS as readonly string[]).includes(action);
  return known ? requiredScopeFor(resource, action) : `${resource}:read`;
}
