import { isResource, Resource, ScopeSet } from '../../../../domain/scope';
import { ACTIONS, requiredScopeFor } from '../../../../domain/tool';
import { ExternalTool, ExternalTools } from '../../../ports/external-tools.port';
import { NAMESPACED_VIEW, UpstreamView } from '../external/upstream-view';

export interface AuthorizeToolCallInput {
  userId: string;
  scopes: ScopeSet;
  name: string;
  arguments?: Record<string, unknown>;
  /** The endpoint's view: which tools exist there and how they are named; /mcp's when left out. */
  view?: UpstreamView;
  /** The OAuth access token the caller came with (secret; absent for a key), for token_exchange servers. */
  subjectToken?: string;
}

/** What a call runs: a built-in tool's resource group, or a tool of one of the user's upstream servers. */
export type ToolTarget = { kind: 'built-in'; resource: Resource } | { kind: 'external'; tool: ExternalTool };

export type ToolCallDecision =
  | { kind: 'allowed'; target: ToolTarget }
  /** `scopes`: those the caller lacks; `required`: every scope the call needs. */
  | { kind: 'denied'; scopes: string[]; required: readonly string[] }
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
    const view = input.view ?? NAMESPACED_VIEW;
    if (view.builtIns && isResource(input.name)) return decide(input.scopes, { kind: 'built-in', resource: input.name }, input.arguments);
    const tool = await this.external.resolve(input.userId, input.name, view, input.subjectToken);
    return tool === null ? UNKNOWN : decide(input.scopes, { kind: 'external', tool }, input.arguments);
  }
}

/** Every scope a call of `target` with these arguments needs (the audit trail records them for calls that ran too). */
export function requiredScopes(target: ToolTarget, args: Record<string, unknown> | undefined): readonly string[] {
  return target.kind === 'built-in' ? [scopeForBuiltIn(target.resource, args?.action)] : target.tool.callScopes;
}

function decide(scopes: ScopeSet, target: ToolTarget, args: Record<string, unknown> | undefined): ToolCallDecision {
  const needed = requiredScopes(target, args);
  const missing = needed.filter((scope) => !scopes.allows(scope));
  return missing.length === 0 ? { kind: 'allowed', target } : { kind: 'denied', scopes: missing, required: needed };
}

function scopeForBuiltIn(resource: Resource, action: unknown): string {
  const known = typeof action === 'string' && (ACTIONS as readonly string[]).includes(action);
  return known ? requiredScopeFor(resource, action) : `${resource}:read`;
}
