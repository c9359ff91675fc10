/** What a rule's condition reads: the only variables there are (RULE_VARIABLES). */
export interface RuleVariables {
  /** The call's arguments as sent (`{}` when absent). */
  args: Record<string, unknown>;
  /** The key the call came with; `id` and `name` are empty for an access token or an internal job. */
  key: { id: string; name: string; scopes: readonly string[] };
  user: { id: string; admin: boolean };
  tool: string;
  /** The server record's name; empty for a built-in tool. */
  server: string;
  now: Date;
}

/** Why a condition was refused at write time, and where (1-based line and column). */
export interface RuleProblem {
  message: string;
  line: number;
  column: number;
}

/** A condition's value for one call: true or false, or why it has none (a missing field, a type error, ...). */
export type RuleValue = boolean | { error: string };

export interface CompiledRule {
  /** Whether the condition reads `args` at all: forward auth, which never sees them, can tell. */
  readonly readsArgs: boolean;
  /** Never throws: an error, or a value that is not a boolean, is `{ error }`. */
  evaluate(variables: RuleVariables): RuleValue;
}

/**
 * The rule language (CEL) behind a port, so the domain and the use-cases
 * stay free of the library. `check` is for writes; `compile` for calls, and
 * caches what it compiled (bounded), so a condition is parsed and planned
 * once per text, not per call.
 */
export interface RuleCompiler {
  /** Null when `source` parses within the bounds and reads only the rule variables. */
  check(source: string): RuleProblem | null;
  /** The compiled condition; one that check() refuses compiles to a rule whose every evaluation is an error. */
  compile(source: string): CompiledRule;
}
