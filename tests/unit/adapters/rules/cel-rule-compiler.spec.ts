import { RuleVariables } from '../../../../src/application/ports/rule-compiler.port';
import { CelRuleCompiler } from '../../../../src/adapters/rules/cel-rule-compiler';

const FRIDAY = new Date('2026-11-27T10:00:00Z');

function variables(overrides: Partial<RuleVariables> = {}): RuleVariables {
  return {
    args: {},
    key: { id: '0b8a6c1e-4c1f-4f60-9d0c-6a3c7c0e8f11', name: 'ci key', scopes: ['projects:read', 'files:write'] },
    user: { id: '5d1f0a7e-8f7b-4a4c-9c55-2f0e4b0a9c3d', admin: false },
    tool: 'files__delete',
    server: 'files',
    now: FRIDAY,
    ...overrides,
  };
}

describe('CelRuleCompiler', () => {
  const compiler = new CelRuleCompiler();
  const evaluate = (source: string, overrides: Partial<RuleVariables> = {}) => compiler.compile(source).evaluate(variables(overrides));

  describe('check (write time)', () => {
    it('accepts a condition over the rule variables', () => {
      expect(compiler.check('args.project == "p" && key.name == "ci key"')).toBeNull();
    });

    it('refuses a condition that does not parse, naming its line and column', () => {
      expect(compiler.check('args.project ==')).toEqual({ message: expect.stringContaining('does not parse'), line: 1, column: 14 });
      expect(compiler.check('args.project == "p" &&\n  args.n >')).toMatchObject({ line: 2, column: 10 });
    });

    it('refuses a condition longer than 2 KiB, and takes one of exactly 2 KiB', () => {
      const exactly = `"${'a'.repeat(2040)}" != ""`;
      expect(new TextEncoder().encode(exactly).length).toBe(2048);
      expect(compiler.check(exactly)).toBeNull();
      expect(compiler.check(`"${'a'.repeat(2041)}" != ""`)).toEqual({ message: expect.stringContaining('2049 bytes'), line: 1, column: 1 });
      // Bytes, not characters: 700 three-byte characters are over.
      expect(compiler.check(`"${'€'.repeat(700)}" != ""`)?.message).toContain('more than 2048');
    });

    it('refuses an unknown variable at its position', () => {
      expect(compiler.check('args.a == 1 ||\n  request.user == "x"')).toEqual({
        message: expect.stringContaining('unknown variable request'),
        line: 2,
        column: 3,
      });
    });

    it('refuses an unknown function at its position, and takes the standard ones and every operator', () => {
      expect(compiler.check('args.a == 1 && lowerAscii(tool) == "x"')).toEqual({
        message: 'calls the unknown function lowerAscii',
        line: 1,
        column: 16,
      });
      expect(compiler.check('args.name.frobnicate()')?.message).toBe('calls the unknown function frobnicate');
      expect(
        compiler.check(
          '!(size(args.s) > 2) || args.s.startsWith("a") && args.s.matches("^a+$") && args.l[0] in ["x"] && (tool == "t" ? true : false) && args.l.all(x, x != "") && int(args.n) >= 0 && now.getDayOfWeek() >= 0 && -args.n < 1.0',
        ),
      ).toBeNull();
    });

    it("allows a comprehension's own variable inside it, and not outside it", () => {
      expect(compiler.check('args.paths.exists(p, p.startsWith("/etc"))')).toBeNull();
      expect(compiler.check('args.paths.map(p, p.size()).all(n, n < 10)')).toBeNull();
      expect(compiler.check('args.paths.exists(p, p == "/") || p == "x"')).toMatchObject({
        message: expect.stringContaining('unknown variable p'),
        line: 1,
        column: 35,
      });
    });

    it('takes every rule variable and the type names', () => {
      expect(
        compiler.check('args == {} || key.id == "" || user.admin || tool == "" || server == "" || now > timestamp("2026-01-01T00:00:00Z")'),
      ).toBeNull();
      expect(compiler.check('type(args.n) == double')).toBeNull();
    });

    it('refuses a comprehension nested in another, and an in test inside one', () => {
      expect(compiler.check('args.a.exists(x, args.b.exists(y, x == y))')?.message).toContain('nests a comprehension');
      expect(compiler.check('args.a.exists(x, x in args.b)')?.message).toContain('`in`');
      // Outside a comprehension's body both are fine: they run once.
      expect(compiler.check('args.a.filter(x, x > 1.0).exists(y, y == 2.0) && "p" in args.b')).toBeNull();
    });

    it('refuses a syntax tree of more than 256 nodes', () => {
      const wide = Array.from({ length: 90 }, (_, i) => `args.a${i} == 1`).join(' || ');
      expect(new TextEncoder().encode(wide).length).toBeLessThan(2048);
      expect(compiler.check(wide)?.message).toContain('too complex');
    });
  });

  describe('evaluate', () => {
    it('reads each variable', () => {
      expect(evaluate('args.project == "p"', { args: { project: 'p' } })).toBe(true);
      expect(evaluate('key.id == "0b8a6c1e-4c1f-4f60-9d0c-6a3c7c0e8f11" && key.name == "ci key"')).toBe(true);
      expect(evaluate('"files:write" in key.scopes')).toBe(true);
      expect(evaluate('user.id == "5d1f0a7e-8f7b-4a4c-9c55-2f0e4b0a9c3d" && !user.admin')).toBe(true);
      expect(evaluate('tool == "files__delete" && server == "files"')).toBe(true);
      expect(evaluate('now.getDayOfWeek("UTC") == 5 && now == timestamp("2026-11-27T10:00:00Z")')).toBe(true);
      expect(evaluate('args.project == "p"', { args: { project: 'q' } })).toBe(false);
    });

    it('binds JSON numbers as doubles: comparisons with ints hold, arithmetic needs a double literal', () => {
      expect(evaluate('args.n > 3', { args: { n: 5 } })).toBe(true);
      expect(evaluate('args.n == 5', { args: { n: 5 } })).toBe(true);
      expect(evaluate('args.n > 3', { args: { n: 2.5 } })).toBe(false);
      expect(evaluate('type(args.n) == double', { args: { n: 5 } })).toBe(true);
      expect(evaluate('args.n + 1.0 == 6.0', { args: { n: 5 } })).toBe(true);
      expect(evaluate('args.n + 1 == 6', { args: { n: 5 } })).toEqual({ error: expect.stringContaining('no matching overload') });
    });

    it('reads nested objects, lists and null', () => {
      expect(evaluate('args.target.paths.exists(p, p.startsWith("/etc"))', { args: { target: { paths: ['/tmp', '/etc/passwd'] } } })).toBe(
        true,
      );
      expect(evaluate('args.o == null', { args: { o: null } })).toBe(true);
      expect(evaluate('has(args.project)', { args: {} })).toBe(false);
    });

    it('gives an error for a missing field, a type error or a division by zero, never a value', () => {
      expect(evaluate('args.project == "p"', { args: {} })).toEqual({ error: expect.stringContaining('project') });
      expect(evaluate('args.project > 3', { args: { project: 'p' } })).toEqual({ error: expect.any(String) });
      expect(evaluate('1 / args.n == 1', { args: { n: 0 } })).toEqual({ error: expect.any(String) });
      expect(evaluate('args.n', { args: { n: 1 } })).toEqual({ error: 'the condition is not true or false' });
    });

    it('compiles a refused condition to one that only errors', () => {
      expect(evaluate('args.project ==')).toEqual({ error: expect.stringContaining('does not compile') });
    });

    it('says whether a condition reads args', () => {
      expect(compiler.compile('args.project == "p"').readsArgs).toBe(true);
      expect(compiler.compile('key.name == "ci"').readsArgs).toBe(false);
    });

    it('compiles a text once', () => {
      expect(compiler.compile('tool == "a"')).toBe(compiler.compile('tool == "a"'));
    });
  });
});
