import { RuleEffect, RuleSource, ToolRule } from '../../../domain/tool';
import { RuleCompiler, RuleVariables } from '../../ports/rule-compiler.port';

/** One rule's outcome for one call: what explain will show, step by step. */
export type RuleStep =
  | { index: number; outcome: 'matched' | 'not_matched' }
  | { index: number; outcome: 'error'; error: string }
  /** Forward auth never sees the arguments: a rule that reads them cannot be decided there. */
  | { index: number; outcome: 'needs_arguments' };

/** The rule that decided a call: the first that matched, or the first that could not be evaluated (fail closed). */
export interface RuleVerdict {
  source: RuleSource;
  tool: string;
  index: number;
  effect: RuleEffect;
  /** What the caller is told: the rule's message, or why the rule could not be evaluated. */
  message: string;
  outcome: Exclude<RuleStep['outcome'], 'not_matched'>;
}

export interface RuleEvaluation {
  verdict: RuleVerdict | null;
  /** Every rule looked at, in order, up to and including the deciding one. Evaluating has no side effect. */
  steps: RuleStep[];
}

export interface RuleSet {
  source: RuleSource;
  rules: readonly ToolRule[];
}

/**
 * A tool's rules in order; the first whose condition is true decides, and
 * so does the first that cannot be evaluated (an error denies: fail closed).
 * `argsKnown: false` (forward auth) turns every rule that reads `args` into
 * such a refusal instead of evaluating it over arguments it does not have.
 */
export function evaluateToolRules(set: RuleSet, compiler: RuleCompiler, variables: RuleVariables, argsKnown = true): RuleEvaluation {
  const steps: RuleStep[] = [];
  for (const [index, rule] of set.rules.entries()) {
    const compiled = compiler.compile(rule.when);
    const verdict = (outcome: RuleVerdict['outcome'], message: string): RuleEvaluation => ({
      verdict: { source: set.source, tool: variables.tool, index, effect: rule.effect, message, outcome },
      steps,
    });
    if (!argsKnown && compiled.readsArgs) {
      steps.push({ index, outcome: 'needs_arguments' });
      return verdict('needs_arguments', `rule ${index} of ${variables.tool} reads the call's arguments, which forward auth does not see`);
    }
    const value = compiled.evaluate(variables);
    if (value === true) {
      steps.push({ index, outcome: 'matched' });
      return verdict('matched', rule.message);
    }
    if (value !== false) {
      steps.push({ index, outcome: 'error', error: value.error });
      // The library's text may quote argument values (`field not found: <value>`): the step keeps it, the message does not.
      return verdict(
        'error',
        `rule ${index} of ${variables.tool} could not be evaluated for this call (a missing argument, a type mismatch or the like), so the call is refused`,
      );
    }
    steps.push({ index, outcome: 'not_matched' });
  }
  return { verdict: null, steps };
}
