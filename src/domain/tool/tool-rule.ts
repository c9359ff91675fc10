/**
 * A tool rule (issue 28): when its CEL condition `when` holds for a call
 * that passed the scope check, `effect` decides the call. A tool's rules are
 * an ordered list; the first whose condition holds decides, and a tool whose
 * rules all fail to match runs as its scopes allow.
 */
export const RULE_EFFECTS = ['deny', 'require_approval'] as const;
export type RuleEffect = (typeof RULE_EFFECTS)[number];

/** Who may approve a call a require_approval rule holds (the key’s owner unless the rule names admins). */
export const RULE_APPROVERS = ['owner', 'admin'] as const;
export type RuleApprover = (typeof RULE_APPROVERS)[number];

export interface ToolRule {
  when: string;
  effect: RuleEffect;
  message: string;
  approvers?: RuleApprover;
}

/** The only names a condition may read (comprehension variables besides, inside their macro). */
export const RULE_VARIABLES = ['args', 'key', 'user', 'tool', 'server', 'now'] as const;

/**
 * Bounds checked when rules are written. The expression's bytes and its
 * syntax tree's nodes bound the work one evaluation does per value of the
 * call's arguments; no comprehension may sit inside another's body, so no
 * rule walks the arguments more than linearly (docs/design/policy-rules.md).
 */
export const RULE_LIMITS = {
  expressionBytes: 2048,
  expressionNodes: 256,
  messageChars: 500,
  rulesPerTool: 20,
} as const;

/** Where a tool's rules came from: a server record (by id), or the built-in tools' table. */
export type RuleSource = { kind: 'server'; recordId: string } | { kind: 'built_in' };

/** The `server` variable of a built-in tool: empty, which no server record's name is (1 to 32 of a-z, 0-9 and -). */
export const BUILT_IN_SERVER = '';
