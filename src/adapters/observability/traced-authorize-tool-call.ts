import {
  AuthorizeToolCall,
  AuthorizeToolCallInput,
  ToolCallDecision,
} from '../../application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { TraceAttributes, Tracing } from './tracing';

/**
 * AuthorizeToolCall in a `keygate.tool.authorize` span: the decision, and
 * which rule decided when one did (where it is, never its message or the
 * arguments it read). Bound only when tracing is on.
 */
export class TracedAuthorizeToolCall extends AuthorizeToolCall {
  constructor(
    private readonly tracing: Tracing,
    ...parts: ConstructorParameters<typeof AuthorizeToolCall>
  ) {
    super(...parts);
  }

  override execute(input: AuthorizeToolCallInput): Promise<ToolCallDecision> {
    return this.tracing.span('keygate.tool.authorize', 'internal', { 'gen_ai.tool.name': input.name }, async (span) => {
      const decision = await super.execute(input);
      span.set(decisionAttributes(decision));
      return decision;
    });
  }
}

function decisionAttributes(decision: ToolCallDecision): TraceAttributes {
  if (decision.kind === 'allowed') return { 'keygate.authz.decision': 'allow' };
  if (decision.kind === 'unknown') return { 'keygate.authz.decision': 'unknown_tool' };
  if (decision.kind === 'denied') return { 'keygate.authz.decision': 'deny', 'keygate.authz.reason': 'scope' };
  const { rule } = decision;
  return {
    'keygate.authz.decision': 'deny',
    'keygate.authz.reason': 'rule',
    'keygate.authz.rule': `${rule.source.kind}:${rule.tool}#${rule.index}`,
    'keygate.authz.rule.effect': rule.effect,
    'keygate.authz.rule.outcome': rule.outcome,
  };
}
