import { CelRuleCompiler } from '../../../../../../src/adapters/rules/cel-rule-compiler';
import { AuthorizeToolCall } from '../../../../../../src/application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { ToolRuleGate } from '../../../../../../src/application/use-cases/gateway/tools/tool-rule-gate';
import { BuiltInRuleReader } from '../../../../../../src/application/ports/tool-rule-store.port';
import { ToolRule } from '../../../../../../src/domain/tool';
import { FakeExternalTools } from '../../../../../fakes/fake-external-tools';
import { FixedClock } from '../../../../../fakes/fixed-clock';
import { ScopeSetMother } from '../../../../../mothers/scope-set.mother';

const deny = (when: string, message = `denied by ${when}`): ToolRule => ({ when, effect: 'deny', message });
const CALLER = { keyId: 'key-1', keyName: 'ci', admin: false };

function makeSut(rules: Record<string, ToolRule[]>, builtIns: Record<string, ToolRule[]> = {}) {
  const external = new FakeExternalTools();
  const files = external.add('u', 'files__write', ['projects:write']);
  files.server.data.tool_rules = rules;
  const reader: BuiltInRuleReader = { rulesFor: async (tool) => builtIns[tool] ?? [], forget: () => undefined };
  // A Monday.
  const gate = new ToolRuleGate(new CelRuleCompiler(), new FixedClock(new Date('2026-06-01T12:00:00Z')), reader);
  const sut = new AuthorizeToolCall(external, gate);
  const decide = (name: string, args?: Record<string, unknown>, scopes: string[] = [], argsKnown?: boolean) =>
    sut.execute({ userId: 'u', scopes: ScopeSetMother.of(...scopes), name, arguments: args, caller: CALLER, argsKnown });
  return { decide };
}

describe('AuthorizeToolCall with tool rules', () => {
  it('lets a call through that no rule matches, and decides by the first rule that matches, in order', async () => {
    const { decide } = makeSut({ write: [deny('args.path.startsWith("/etc")', 'not /etc'), deny('args.path.size() > 3', 'too long')] });
    expect(await decide('files__write', { path: '/a' })).toMatchObject({ kind: 'allowed' });
    expect(await decide('files__write', { path: '/etc/passwd' })).toMatchObject({
      kind: 'refused',
      message: 'Refused by rule 0 of write: not /etc',
      rule: { index: 0, effect: 'deny', outcome: 'matched', source: { kind: 'server', recordId: 'files-id' }, tool: 'write' },
      required: ['projects:write'],
      steps: [{ index: 0, outcome: 'matched' }],
    });
    expect(await decide('files__write', { path: '/home/me' })).toMatchObject({
      kind: 'refused',
      message: 'Refused by rule 1 of write: too long',
      steps: [
        { index: 0, outcome: 'not_matched' },
        { index: 1, outcome: 'matched' },
      ],
    });
  });

  it('looks at the rules only after the scopes allowed the call', async () => {
    const { decide } = makeSut({ write: [deny('1 / 0 == 1')] });
    expect(await decide('files__write', {}, ['projects:read'])).toEqual({
      kind: 'denied',
      scopes: ['projects:write'],
      required: ['projects:write'],
    });
  });

  it('refuses a call a rule cannot evaluate (fail closed), before any later rule, without quoting the arguments', async () => {
    const { decide } = makeSut({ write: [deny('int(args.n) > 3'), deny('true', 'never reached')] });
    const decision = await decide('files__write', { n: 'SECRET-value' });
    expect(decision).toMatchObject({ kind: 'refused', rule: { index: 0, outcome: 'error' }, steps: [{ index: 0, outcome: 'error' }] });
    expect(decision.kind === 'refused' && decision.message).toMatch(/^Refused: rule 0 of write could not be evaluated for this call/);
    expect(decision.kind === 'refused' && decision.message).not.toContain('SECRET');
  });

  it('refuses a require_approval match, saying only a tools/call on /mcp with a key can ask for the approval', async () => {
    const { decide } = makeSut({ write: [{ when: 'true', effect: 'require_approval', message: 'ask first', approvers: 'admin' }] });
    expect(await decide('files__write', {})).toMatchObject({
      kind: 'refused',
      message:
        'This call needs approval (rule 0 of write: ask first), which only a tools/call through /mcp with an API key can ask for, so it is refused',
      rule: { effect: 'require_approval', outcome: 'matched' },
      target: { kind: 'external' },
    });
  });

  it('hands the rules key, user, tool, server and now', async () => {
    const { decide } = makeSut({
      write: [
        deny(
          'key.id == "key-1" && key.name == "ci" && "projects:read" in key.scopes && user.id == "u" && !user.admin' +
            ' && tool == "write" && server == "files" && now.getDayOfWeek() == 1',
        ),
      ],
    });
    // `projects:write` grants `projects:read`: key.scopes lists every scope the key grants.
    expect(await decide('files__write', {}, ['projects:write'])).toMatchObject({ kind: 'refused', rule: { outcome: 'matched' } });
  });

  it('applies the built-in rules to a built-in tool, whose server is empty', async () => {
    const { decide } = makeSut({}, { projects: [deny('server == "" && tool == "projects" && args.action == "delete"', 'no deletes')] });
    expect(await decide('projects', { action: 'delete' })).toMatchObject({
      kind: 'refused',
      message: 'Refused by rule 0 of projects: no deletes',
    });
    expect(await decide('projects', { action: 'list' })).toMatchObject({ kind: 'allowed' });
    expect(await decide('agents', { action: 'delete' })).toMatchObject({ kind: 'allowed' });
  });

  it('without the arguments (forward auth), refuses at a rule that reads them and evaluates those that do not', async () => {
    const { decide } = makeSut({ write: [deny('key.name == "other"'), deny('args.path == "/"'), deny('true')] });
    expect(await decide('files__write', undefined, [], false)).toMatchObject({
      kind: 'refused',
      rule: { index: 1, outcome: 'needs_arguments' },
      steps: [
        { index: 0, outcome: 'not_matched' },
        { index: 1, outcome: 'needs_arguments' },
      ],
    });
  });

  it('leaves a tool without rules, or with an empty list, to its scopes', async () => {
    const { decide } = makeSut({ other: [deny('true')], write: [] });
    expect(await decide('files__write', {})).toMatchObject({ kind: 'allowed' });
  });
});
