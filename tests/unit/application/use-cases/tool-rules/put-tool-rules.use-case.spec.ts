import { CelRuleCompiler } from '../../../../../src/adapters/rules/cel-rule-compiler';
import { PutToolRules } from '../../../../../src/application/use-cases/tool-rules/put-tool-rules.use-case';
import { ForbiddenError, NotFoundError, ValidationError } from '../../../../../src/domain/errors';
import { FixedClock } from '../../../../fakes/fixed-clock';
import { InMemoryToolRuleStore } from '../../../../fakes/in-memory-tool-rule-store';
import { InMemoryUnitOfWork } from '../../../../fakes/in-memory-unit-of-work';

const ADMIN = { userId: 'admin-1', isAdmin: true };
const rule = { when: 'args.action == "delete"', effect: 'deny', message: 'no deletes' };

function makeSut() {
  const toolRules = new InMemoryToolRuleStore();
  const work = new InMemoryUnitOfWork({ toolRules });
  let forgotten = 0;
  const reader = { rulesFor: async () => [], forget: () => void (forgotten += 1) };
  const sut = new PutToolRules(work, reader, new CelRuleCompiler(), new FixedClock());
  return { sut, toolRules, audit: work.audit, forgotten: () => forgotten };
}

describe('PutToolRules', () => {
  it("replaces a built-in tool's rules with its event, and drops this replica's copy", async () => {
    const { sut, toolRules, audit, forgotten } = makeSut();
    const stored = await sut.execute({
      actor: ADMIN,
      tool: 'projects',
      rules: [rule, { ...rule, effect: 'require_approval', approvers: 'admin' }],
    });
    expect(stored.rules).toHaveLength(2);
    expect((await toolRules.list()).map((row) => row.tool)).toEqual(['projects']);
    expect(audit.records).toEqual([
      expect.objectContaining({
        action: 'tool_rules.updated',
        actor: { type: 'user', id: 'admin-1' },
        target: { type: 'tool', id: 'projects' },
        details: { rule_count: 2, effects: ['deny', 'require_approval'] },
      }),
    ]);
    expect(forgotten()).toBe(1);
    await sut.execute({ actor: ADMIN, tool: 'projects', rules: [] });
    expect(await toolRules.list()).toEqual([]);
  });

  it('refuses a non-admin, a tool that is not built in, and bad rules, writing nothing', async () => {
    const { sut, toolRules, audit } = makeSut();
    await expect(sut.execute({ actor: { userId: 'u', isAdmin: false }, tool: 'projects', rules: [rule] })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    await expect(sut.execute({ actor: ADMIN, tool: 'files__echo', rules: [rule] })).rejects.toBeInstanceOf(NotFoundError);
    const bad = sut.execute({ actor: ADMIN, tool: 'projects', rules: [rule, { ...rule, when: 'who == 1' }] });
    await expect(bad).rejects.toBeInstanceOf(ValidationError);
    await expect(bad).rejects.toMatchObject({ errors: [{ field: 'rules[1].when', message: expect.stringContaining('line 1, column 1') }] });
    expect(await toolRules.list()).toEqual([]);
    expect(audit.records).toEqual([]);
  });
});
