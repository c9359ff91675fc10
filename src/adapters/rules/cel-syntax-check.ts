import type { parse } from '@bufbuild/cel';
import { RuleProblem } from '../../application/ports/rule-compiler.port';
import { RULE_LIMITS, RULE_VARIABLES } from '../../domain/tool';

type ParsedExpr = ReturnType<typeof parse>;
type Expr = NonNullable<ParsedExpr['expr']>;

/** Type names a condition may use as values (`type(args.n) == int`). */
const TYPE_NAMES = ['bool', 'bytes', 'double', 'dyn', 'int', 'list', 'map', 'null_type', 'string', 'type', 'uint'];
const KNOWN = new Set<string>([...RULE_VARIABLES, ...TYPE_NAMES]);
/** Calls the parser makes that the planner handles itself, not as functions of the environment. */
const OPERATORS = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '@not_strictly_false']);

/** A parsed condition's problem (its position an offset into the source), or null, and whether it reads `args`. */
export interface SyntaxFacts {
  problem: { message: string; offset: number } | null;
  readsArgs: boolean;
}

/**
 * Walks a parsed condition once (the library's own checker is not exported):
 * every identifier must be a rule variable, a type name or a variable a
 * comprehension (all, exists, exists_one, map, filter) binds around it;
 * every call a function of the environment (`isFunction`) or an operator; the
 * tree has at most RULE_LIMITS.expressionNodes nodes; and no comprehension,
 * nor an `in` test, sits in another comprehension's body, where it would run
 * once per element of the outer one.
 */
export function syntaxFacts(parsed: ParsedExpr, isFunction: (name: string) => boolean = () => true): SyntaxFacts {
  const positions = parsed.sourceInfo?.positions ?? {};
  const offsetOf = (expr: Expr) => positions[String(expr.id)] ?? 0;
  let nodes = 0;
  let readsArgs = false;
  let problem: SyntaxFacts['problem'] = null;
  const fail = (expr: Expr, message: string) => void (problem ??= { message, offset: offsetOf(expr) });

  const walk = (expr: Expr | undefined, bound: ReadonlySet<string>, inLoop: boolean): void => {
    if (expr === undefined || problem !== null) return;
    if (++nodes > RULE_LIMITS.expressionNodes) return fail(expr, `is too complex: more than ${RULE_LIMITS.expressionNodes} syntax nodes`);
    const kind = expr.exprKind;
    switch (kind.case) {
      case 'identExpr':
        if (kind.value.name === 'args') readsArgs = true;
        if (!KNOWN.has(kind.value.name) && !bound.has(kind.value.name)) {
          fail(expr, `uses the unknown variable ${kind.value.name} (rules read ${RULE_VARIABLES.join(', ')})`);
        }
        return;
      case 'selectExpr':
        return walk(kind.value.operand, bound, inLoop);
      case 'callExpr':
        if (!isFunction(kind.value.function) && !OPERATORS.has(kind.value.function))
          return fail(expr, `calls the unknown function ${kind.value.function}`);
        if (inLoop && kind.value.function === '@in')
          return fail(expr, 'tests `in` inside a comprehension, which would walk a list per element');
        walk(kind.value.target, bound, inLoop);
        for (const arg of kind.value.args) walk(arg, bound, inLoop);
        return;
      case 'listExpr':
        for (const element of kind.value.elements) walk(element, bound, inLoop);
        return;
      case 'structExpr':
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === 'mapKey') walk(entry.keyKind.value, bound, inLoop);
          walk(entry.value, bound, inLoop);
        }
        return;
      case 'comprehensionExpr': {
        const c = kind.value;
        if (inLoop) return fail(expr, 'nests a comprehension inside another, which would walk a list per element');
        walk(c.iterRange, bound, inLoop);
        walk(c.accuInit, bound, inLoop);
        const inner = new Set([...bound, c.iterVar, c.accuVar, ...(c.iterVar2 === '' ? [] : [c.iterVar2])]);
        walk(c.loopCondition, inner, true);
        walk(c.loopStep, inner, true);
        walk(c.result, inner, inLoop);
        return;
      }
      default:
        return;
    }
  };
  walk(parsed.expr, new Set(), false);
  return { problem, readsArgs };
}

/** 1-based line and column of a code-point offset into `source`. */
export function lineAndColumn(source: string, offset: number): Pick<RuleProblem, 'line' | 'column'> {
  const before = Array.from(source).slice(0, Math.max(0, offset));
  let line = 1;
  let column = 1;
  for (const char of before) {
    if (char === '\n') {
      line += 1;
      column = 1;
    } else column += 1;
  }
  return { line, column };
}
