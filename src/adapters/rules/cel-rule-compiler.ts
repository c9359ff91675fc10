import { celEnv, CelScalar, isCelError, mapType, parse, plan } from '@bufbuild/cel';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { LRUCache } from 'lru-cache';
import { CompiledRule, RuleCompiler, RuleProblem, RuleValue, RuleVariables } from '../../application/ports/rule-compiler.port';
import { RULE_LIMITS } from '../../domain/tool';
import { lineAndColumn, syntaxFacts } from './cel-syntax-check';

/**
 * Declared as maps of dynamic values: `args` is whatever JSON the caller
 * sent, so its fields are known only at evaluation (a missing one is an
 * error, which denies). JSON numbers bind as CEL doubles, whatever their
 * value (as CEL reads a google.protobuf.Value): `args.n > 3` and
 * `args.n == 5` hold for a 5 (CEL compares numbers across types), while
 * arithmetic with an int literal needs a double one (`args.n + 1.0`).
 */
const ENV = celEnv({
  variables: {
    args: mapType(CelScalar.STRING, CelScalar.DYN),
    key: mapType(CelScalar.STRING, CelScalar.DYN),
    user: mapType(CelScalar.STRING, CelScalar.DYN),
    tool: CelScalar.STRING,
    server: CelScalar.STRING,
    now: CelScalar.DYN,
  },
});

/** A planned condition: the bindings in, a value or an error out. */
type Program = (bindings: never) => unknown;

/** Distinct conditions kept compiled; a record or the built-in table holds at most a few hundred. */
const CACHED_RULES = 2000;
/** How much of a parser's message an answer quotes. */
const MESSAGE_CHARS = 200;

/**
 * CEL by @bufbuild/cel: a condition is parsed, walked (cel-syntax-check.ts)
 * and planned once per text, then kept (LRU, CACHED_RULES); a call only
 * evaluates the plan.
 */
export class CelRuleCompiler implements RuleCompiler {
  private readonly cache = new LRUCache<string, CompiledRule>({ max: CACHED_RULES });

  check(source: string): RuleProblem | null {
    return this.prepare(source).problem;
  }

  compile(source: string): CompiledRule {
    let rule = this.cache.get(source);
    if (rule === undefined) {
      rule = this.prepare(source).rule;
      this.cache.set(source, rule);
    }
    return rule;
  }

  private prepare(source: string): { problem: RuleProblem | null; rule: CompiledRule } {
    const bytes = new TextEncoder().encode(source).length;
    if (bytes > RULE_LIMITS.expressionBytes) {
      return refused({ message: `is ${bytes} bytes long, more than ${RULE_LIMITS.expressionBytes}`, line: 1, column: 1 });
    }
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(source);
    } catch (error) {
      return refused(parseProblem(error));
    }
    const facts = syntaxFacts(parsed, (name) => ENV.funcs.find(name) !== undefined);
    if (facts.problem !== null) return refused({ message: facts.problem.message, ...lineAndColumn(source, facts.problem.offset) });
    let program: Program;
    try {
      program = plan(ENV, parsed);
    } catch (error) {
      return refused({ message: clip(error instanceof Error ? error.message : String(error)), line: 1, column: 1 });
    }
    return { problem: null, rule: { readsArgs: facts.readsArgs, evaluate: (variables) => run(program, variables) } };
  }
}

function run(program: Program, variables: RuleVariables): RuleValue {
  try {
    const value = program({
      args: variables.args,
      key: { id: variables.key.id, name: variables.key.name, scopes: [...variables.key.scopes] },
      user: { id: variables.user.id, admin: variables.user.admin },
      tool: variables.tool,
      server: variables.server,
      now: timestampFromDate(variables.now),
    } as never);
    if (isCelError(value)) return { error: clip(value.message) };
    return typeof value === 'boolean' ? value : { error: 'the condition is not true or false' };
  } catch (error) {
    // The library answers errors as values; a throw is a value it could not take (say a nesting too deep): still no match.
    return { error: clip(error instanceof Error ? error.message : 'evaluation failed') };
  }
}

function refused(problem: RuleProblem): { problem: RuleProblem; rule: CompiledRule } {
  const error = `the condition does not compile: ${problem.message}`;
  return { problem, rule: { readsArgs: false, evaluate: () => ({ error }) } };
}

/** The parser's `<input>:line:col: message`, as a position and the message. */
function parseProblem(error: unknown): RuleProblem {
  const text = error instanceof Error ? error.message : String(error);
  const match = /^<input>:(\d+):(\d+): ([\s\S]*)$/.exec(text);
  if (match === null) return { message: clip(text), line: 1, column: 1 };
  return { message: clip(`does not parse: ${match[3].split('\n')[0]}`), line: Number(match[1]), column: Number(match[2]) };
}

function clip(text: string): string {
  return text.length <= MESSAGE_CHARS ? text : `${text.slice(0, MESSAGE_CHARS)}…`;
}
