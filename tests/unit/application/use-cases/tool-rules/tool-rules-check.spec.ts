import { CelRuleCompiler } from '../../../../../src/adapters/rules/cel-rule-compiler';
import { checkToolRules } from '../../../../../src/application/use-cases/tool-rules/tool-rules-check';

function problems(value: unknown, maxTools = 5): { field: string; message: string }[] {
  const found: { field: string; message: string }[] = [];
  checkToolRules('tool_rules', value, new CelRuleCompiler(), maxTools, (field, message) => found.push({ field, message }));
  return found;
}

const rule = (over: Record<string, unknown> = {}) => ({ when: 'args.a == 1', effect: 'deny', message: 'no', ...over });

describe('checkToolRules', () => {
  it('takes well-formed rules of both effects, approvers optional', () => {
    expect(problems({ a: [rule(), rule({ effect: 'require_approval', approvers: 'admin' })], b: [] })).toEqual([]);
  });

  it('names a condition that does not compile with its line and column', () => {
    expect(problems({ a: [rule(), rule({ when: 'args.a == 1 &&\n  args.b >' })] })).toEqual([
      { field: 'tool_rules.a[1].when', message: expect.stringMatching(/^line 2, column 10: does not parse/) },
    ]);
    expect(problems({ a: [rule({ when: 'secret == 1' })] })).toEqual([
      { field: 'tool_rules.a[0].when', message: expect.stringMatching(/^line 1, column 1: uses the unknown variable secret/) },
    ]);
  });

  it('refuses a bad shape field by field', () => {
    expect(problems([])).toEqual([{ field: 'tool_rules', message: 'must map tool names to arrays of rules' }]);
    expect(problems({ a: {} })).toEqual([{ field: 'tool_rules.a', message: 'must be an array of rules' }]);
    expect(problems({ a: ['x'] })).toEqual([{ field: 'tool_rules.a[0]', message: expect.stringContaining('must be an object') }]);
    expect(
      problems({ a: [{ when: '', effect: 'allow', message: 'x'.repeat(501), approvers: 'everyone', extra: 1 }] }).map((p) => p.field),
    ).toEqual([
      'tool_rules.a[0].extra',
      'tool_rules.a[0].when',
      'tool_rules.a[0].effect',
      'tool_rules.a[0].message',
      'tool_rules.a[0].approvers',
    ]);
    expect(problems({ a: [rule({ message: 'two\nlines' })] })).toEqual([
      { field: 'tool_rules.a[0].message', message: 'must not contain control characters' },
    ]);
  });

  it('bounds the rules per tool and the tools per record', () => {
    expect(problems({ a: Array.from({ length: 20 }, () => rule()) })).toEqual([]);
    expect(problems({ a: Array.from({ length: 21 }, () => rule()) })).toEqual([
      { field: 'tool_rules.a', message: 'has 21 rules, more than 20' },
    ]);
    expect(problems({ a: [], b: [], c: [] }, 2)).toEqual([{ field: 'tool_rules', message: 'names 3 tools, more than 2' }]);
  });
});
