import { RULE_APPROVERS, RULE_EFFECTS, RULE_LIMITS, ToolRule } from '../../../domain/tool';
import { RuleCompiler } from '../../ports/rule-compiler.port';

type Add = (field: string, message: string) => void;

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const RULE_FIELDS = ['when', 'effect', 'message', 'approvers'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A map of tool names to rule lists (a server record's `tool_rules`): at
 * most `maxTools` tools, each list as checkRuleList says. Each problem is
 * named by its field (`<field>.<tool>[<i>].when`), a condition's with its
 * line and column.
 */
export function checkToolRules(field: string, value: unknown, compiler: RuleCompiler, maxTools: number, add: Add): void {
  if (!isObject(value)) return add(field, 'must map tool names to arrays of rules');
  const tools = Object.keys(value);
  if (tools.length > maxTools) return add(field, `names ${tools.length} tools, more than ${maxTools}`);
  for (const tool of tools) checkRuleList(`${field}.${tool}`, value[tool], compiler, add);
}

/** An ordered list of at most RULE_LIMITS.rulesPerTool rules, each `{when, effect, message, approvers?}`. */
export function checkRuleList(field: string, value: unknown, compiler: RuleCompiler, add: Add): void {
  if (!Array.isArray(value)) return add(field, 'must be an array of rules');
  if (value.length > RULE_LIMITS.rulesPerTool) return add(field, `has ${value.length} rules, more than ${RULE_LIMITS.rulesPerTool}`);
  value.forEach((rule, i) => checkRule(`${field}[${i}]`, rule, compiler, add));
}

function checkRule(field: string, rule: unknown, compiler: RuleCompiler, add: Add): void {
  if (!isObject(rule)) return add(field, 'must be an object {when, effect, message}');
  for (const key of Object.keys(rule))
    if (!RULE_FIELDS.includes(key)) add(`${field}.${key}`, `is not a field of a rule (${RULE_FIELDS.join(', ')})`);
  if (typeof rule.when !== 'string' || rule.when.trim() === '') add(`${field}.when`, 'is required: a CEL condition');
  else {
    const problem = compiler.check(rule.when);
    if (problem !== null) add(`${field}.when`, `line ${problem.line}, column ${problem.column}: ${problem.message}`);
  }
  if (!(RULE_EFFECTS as readonly unknown[]).includes(rule.effect)) add(`${field}.effect`, `must be one of ${RULE_EFFECTS.join(', ')}`);
  if (typeof rule.message !== 'string' || rule.message.trim() === '') add(`${field}.message`, 'is required: what a refused caller is told');
  else if (rule.message.length > RULE_LIMITS.messageChars) add(`${field}.message`, `is longer than ${RULE_LIMITS.messageChars} characters`);
  // The message goes into error texts and logs: one line, nothing to spoof a terminal with.
  else if (CONTROL.test(rule.message)) add(`${field}.message`, 'must not contain control characters');
  if (rule.approvers !== undefined && !(RULE_APPROVERS as readonly unknown[]).includes(rule.approvers)) {
    add(`${field}.approvers`, `must be one of ${RULE_APPROVERS.join(', ')}`);
  }
}

/** A list that passed checkRuleList, as rules. */
export function asRules(value: unknown): readonly ToolRule[] {
  return Array.isArray(value) ? (value as ToolRule[]) : [];
}
