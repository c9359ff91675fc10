import { isResource, Resource, ScopeSet } from '../../../../domain/scope';
import { ACTIONS, requiredScopeFor } from '../../../../domain/tool';
import { ExternalTools } from '../../../ports/external-tools.port';
import { ToolTarget } from './tool-target';
import { NAMESPACED_VIEW, UpstreamView } from '../external/upstream-view';
import { RuleStep, RuleVerdict } from '../../tool-rules/evaluate-tool-rules';
import { RuleCaller, ToolRuleGate } from './tool-rule-gate';

export interface AuthorizeToolCallInput {
  userId: string;
  scopes: ScopeSet;
  name: string;
  arguments?: Record<string, unknown>;
  /** The endpoint's view: which tools exist there and how they are named; /mcp's when left out. */
  view?: UpstreamView;
  /** The OAuth access token the caller came with (secret; absent for a key), for token_exchange servers. */
  subjectToken?: string;
  /** The key the call came with, for the tool's rules (`key`, `user.admin`); absent for an internal job. */
  caller?: RuleCaller;
  /** False when the arguments are not known (forward auth): a rule that reads them refuses the call. */
  argsKnown?: boolean;
}

export type { ToolTarget } from './tool-target';

export type ToolCallDecision =
  | { kind: 'allowed'; target: ToolTarget }
  /** `scopes`: those the caller lacks; `required`: every scope the call needs. */
  | { kind: 'denied'; scopes: string[]; required: readonly string[] }
  /**
   * The scopes allowed it, then one of the tool's rules refused it: a deny
   * rule matched, a rule could not be evaluated, or a require_approval rule
   * matched (refused here; /mcp then asks for an approval, ClaimToolCallApproval,
   * for the `target`). `message` is what the caller is told; `steps` every
   * rule looked at, in order.
   */
  | { kind: 'refused'; rule: RuleVerdict; message: string; required: readonly string[]; steps: RuleStep[]; target: ToolTarget }
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
  constructor(
    private readonly external: ExternalTools,
    /** The tools' rules, looked at once the scopes allow a call; absent, no tool has any. */
    private readonly rules: ToolRuleGate | null = null,
  ) {}

  async execute(input: AuthorizeToolCallInput): Promise<ToolCallDecision> {
    const view = input.view ?? NAMESPACED_VIEW;
    if (view.builtIns && isResource(input.name))
      return this.withRules(input, decide(input.scopes, { kind: 'built-in', resource: input.name }, input.arguments));
    const tool = await this.external.resolve(input.userId, input.name, view, input.subjectToken);
    return tool === null ? UNKNOWN : this.withRules(input, decide(input.scopes, { kind: 'external', tool }, input.arguments));
  }

  private async withRules(input: AuthorizeToolCallInput, decision: ToolCallDecision): Promise<ToolCallDecision> {
    if (decision.kind !== 'allowed' || this.rules === null) return decision;
    const { target } = decision;
    const { verdict, steps } = await this.rules.evaluate({
      target,
      userId: input.userId,
      scopes: input.scopes,
      caller: input.caller,
      arguments: input.arguments,
      argsKnown: input.argsKnown ?? true,
    });
    if (verdict === null) return decision;
    return {
      kind: 'refused',
      rule: verdict,
      message: refusalMessage(verdict),
      required: requiredScopes(target, input.arguments),
      steps,
      target,
    };
  }
}

/** What a refused caller reads: the rule's own message, or why the rule refused without matching. */
function refusalMessage(rule: RuleVerdict): string {
  const which = `rule ${rule.index} of ${rule.tool}`;
  if (rule.outcome !== 'matched') return `Refused: ${rule.message}`;
  if (rule.effect === 'deny') return `Refused by ${which}: ${rule.message}`;
  // Only a tools/call on /mcp by an API key can hold a call for approval (the gate asks for one); anywhere else it is refused.
  return `This call needs approval (${which}: ${rule.message}), which only a tools/call through /mcp with an API key can ask for, so it is refused`;
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
