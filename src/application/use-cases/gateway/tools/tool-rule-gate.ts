import { BUILT_IN_SERVER, ToolRule } from '../../../../domain/tool';
import { Clock } from '../../../ports/clock.port';
import { RuleCompiler } from '../../../ports/rule-compiler.port';
import { BuiltInRuleReader } from '../../../ports/tool-rule-store.port';
import { ScopeSet } from '../../../../domain/scope';
import { grantedScopes } from '../../granted-scopes';
import { evaluateToolRules, RuleEvaluation, RuleSet } from '../../tool-rules/evaluate-tool-rules';
import { asRules } from '../../tool-rules/tool-rules-check';
import { ToolTarget } from './tool-target';

/** Who calls, as the rules' `key` and `user` read them; absent (an internal job), the key's id and name are empty. */
export interface RuleCaller {
  keyId: string;
  keyName: string;
  admin: boolean;
}

export interface RuleCall {
  target: ToolTarget;
  userId: string;
  scopes: ScopeSet;
  caller?: RuleCaller;
  arguments?: Record<string, unknown>;
  /** False on forward auth, which sees no arguments. */
  argsKnown: boolean;
}

const NO_RULES: RuleEvaluation = { verdict: null, steps: [] };

/**
 * The rules of the called tool, after its scope check: a server record's
 * `tool_rules` for the upstream tool (by its own name on that server), or
 * the built-in tools' table. Conditions are compiled once per text (the
 * compiler caches them), so a call only evaluates.
 */
export class ToolRuleGate {
  constructor(
    private readonly compiler: RuleCompiler,
    private readonly clock: Clock,
    private readonly builtIns: BuiltInRuleReader | null,
  ) {}

  async evaluate(call: RuleCall): Promise<RuleEvaluation> {
    const set = await this.rulesFor(call.target);
    if (set === null || set.rules.length === 0) return NO_RULES;
    // `tool` is the name the rules are kept under: an upstream tool's own name on its server, a built-in tool's name.
    const { target } = call;
    const tool = target.kind === 'external' ? target.tool.tool : target.resource;
    const server = target.kind === 'external' ? String(target.tool.server.data.name ?? '') : BUILT_IN_SERVER;
    return evaluateToolRules(
      set,
      this.compiler,
      {
        args: call.arguments ?? {},
        key: { id: call.caller?.keyId ?? '', name: call.caller?.keyName ?? '', scopes: grantedScopes(call.scopes) },
        user: { id: call.userId, admin: call.caller?.admin ?? false },
        tool,
        server,
        now: this.clock.now(),
      },
      call.argsKnown,
    );
  }

  /** The target's rules in order, with where they are kept; null when it has none (explain lists them all). */
  async rulesFor(target: ToolTarget): Promise<RuleSet | null> {
    if (target.kind === 'built-in') {
      if (this.builtIns === null) return null;
      return { source: { kind: 'built_in' }, rules: await this.builtIns.rulesFor(target.resource) };
    }
    const { server, tool } = target.tool;
    const map = server.data.tool_rules;
    if (typeof map !== 'object' || map === null || !Object.hasOwn(map, tool)) return null;
    const rules: readonly ToolRule[] = asRules((map as Record<string, unknown>)[tool]);
    return { source: { kind: 'server', recordId: server.id }, rules };
  }
}
