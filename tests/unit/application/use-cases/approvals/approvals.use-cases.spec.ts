import { randomUUID } from 'node:crypto';
import { CelRuleCompiler } from '../../../../../src/adapters/rules/cel-rule-compiler';
import { Sha256ContentDigest } from '../../../../../src/adapters/crypto/sha256-content-digest';
import { argumentsSha256 } from '../../../../../src/adapters/audit/arguments-digest';
import { BuiltInRuleReader } from '../../../../../src/application/ports/tool-rule-store.port';
import { argumentsDigest } from '../../../../../src/application/use-cases/approvals/approval-binding';
import { ClaimToolCallApproval } from '../../../../../src/application/use-cases/approvals/claim-tool-call-approval.use-case';
import { DecideApproval } from '../../../../../src/application/use-cases/approvals/decide-approval.use-case';
import { ListApprovals } from '../../../../../src/application/use-cases/approvals/list-approvals.use-case';
import { ToolRuleGate } from '../../../../../src/application/use-cases/gateway/tools/tool-rule-gate';
import { ToolTarget } from '../../../../../src/application/use-cases/gateway/tools/tool-target';
import { RuleVerdict } from '../../../../../src/application/use-cases/tool-rules/evaluate-tool-rules';
import { ApprovalRequiredError, ConflictError, NotFoundError } from '../../../../../src/domain/errors';
import { ToolRule } from '../../../../../src/domain/tool';
import { FakeExternalTools } from '../../../../fakes/fake-external-tools';
import { FixedClock } from '../../../../fakes/fixed-clock';
import { InMemoryToolCallApprovalStore } from '../../../../fakes/in-memory-tool-call-approval.store';
import { InMemoryUnitOfWork } from '../../../../fakes/in-memory-unit-of-work';
import { ActorMother } from '../../../../mothers/actor.mother';

const digest = new Sha256ContentDigest();
const OWNER = randomUUID();
const KEY: string = randomUUID();

function makeSut(rule: ToolRule = { when: 'true', effect: 'require_approval', message: 'needs a yes' }) {
  const store = new InMemoryToolCallApprovalStore();
  const work = new InMemoryUnitOfWork({ approvals: store });
  const clock = new FixedClock();
  const external = new FakeExternalTools();
  const files = external.add(OWNER, 'files__write', ['projects:write']);
  files.server.data.tool_rules = { write: [rule] };
  const builtIns: Record<string, ToolRule[]> = { projects: [rule] };
  const reader: BuiltInRuleReader = { rulesFor: async (tool) => builtIns[tool] ?? [], forget: () => undefined };
  const gate = new ToolRuleGate(new CelRuleCompiler(), clock, reader);
  const settings = { ttlSeconds: 60, maxPendingPerKey: 3, pageUrl: (id: string) => `https://kg.example/console/#/approvals/${id}` };
  const claim = new ClaimToolCallApproval(store, work, gate, digest, clock, settings);
  const verdict: RuleVerdict = {
    source: { kind: 'server', recordId: files.server.id },
    tool: 'write',
    index: 0,
    effect: 'require_approval',
    message: rule.message,
    outcome: 'matched',
  };
  const external_: ToolTarget = { kind: 'external', tool: files };
  const call = (args: Record<string, unknown> = { path: '/a' }, keyId = KEY, target = external_) =>
    claim.execute({ keyId, userId: OWNER, name: 'files__write', target, arguments: args, rule: verdict });
  const decide = new DecideApproval(store, work, clock);
  const list = new ListApprovals(store, clock);
  const pendingId = async (args?: Record<string, unknown>, keyId: string = KEY) => {
    const claimed = await call(args, keyId);
    if (claimed.kind !== 'pending') throw new Error(`expected pending, got ${claimed.kind}`);
    return claimed.error.approvalId;
  };
  const actions = () => work.audit.records.map((r) => r.action);
  return { store, work, clock, files, call, decide, list, pendingId, actions, builtIns, gate, claim, verdict };
}

describe('argumentsDigest', () => {
  it('is the canonical JSON digest the audit trail records: key order does not matter, values do', () => {
    const a = argumentsDigest({ b: 1, a: { y: [1, 2], x: 'é' } }, digest);
    expect(a).toBe(argumentsDigest({ a: { x: 'é', y: [1, 2] }, b: 1 }, digest));
    expect(a).toBe(argumentsSha256({ b: 1, a: { y: [1, 2], x: 'é' } }));
    expect(a).not.toBe(argumentsDigest({ b: 2, a: { y: [1, 2], x: 'é' } }, digest));
    expect(a).not.toBe(argumentsDigest({ b: 1, a: { y: [2, 1], x: 'é' } }, digest));
    expect(argumentsDigest(undefined, digest)).toBe(argumentsDigest({}, digest));
    expect(argumentsDigest({}, digest)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('ClaimToolCallApproval', () => {
  it('holds a pending approval bound to the call and names its page, once per identical call', async () => {
    const { call, store, actions } = makeSut();
    const first = await call({ path: '/a', n: 1 });
    expect(first.kind).toBe('pending');
    const error = (first as { error: ApprovalRequiredError }).error;
    expect(error).toBeInstanceOf(ApprovalRequiredError);
    expect(error.approvalUrl).toBe(`https://kg.example/console/#/approvals/${error.approvalId}`);
    expect(error.message).toContain('rule 0 of write: needs a yes');
    expect(store.rows).toHaveLength(1);
    expect(store.rows[0]).toMatchObject({
      keyId: KEY,
      userId: OWNER,
      state: 'pending',
      arguments: { path: '/a', n: 1 },
      approvers: 'owner',
    });
    expect(store.rows[0].argumentsSha256).toBe(argumentsSha256({ n: 1, path: '/a' }));
    // The same call again, still pending: the same approval, no second one.
    const again = await call({ n: 1, path: '/a' });
    expect((again as { error: ApprovalRequiredError }).error.approvalId).toBe(error.approvalId);
    expect(actions()).toEqual(['approval.requested']);
  });

  it('runs the same call exactly once after it is granted; the next identical call needs a new approval', async () => {
    const { call, decide, pendingId, actions } = makeSut();
    const id = await pendingId();
    await decide.execute({ actor: ActorMother.user(OWNER), id, decision: 'granted' });
    expect(await call()).toMatchObject({ kind: 'approved', approval: { id } });
    const next = await call();
    expect(next.kind).toBe('pending');
    expect((next as { error: ApprovalRequiredError }).error.approvalId).not.toBe(id);
    expect(actions()).toEqual(['approval.requested', 'approval.granted', 'approval.used', 'approval.requested']);
  });

  it('binds the approval: other arguments, another key, a changed record need their own', async () => {
    const { call, decide, pendingId, files, store } = makeSut();
    const id = await pendingId({ path: '/a' });
    await decide.execute({ actor: ActorMother.user(OWNER), id, decision: 'granted' });
    expect((await call({ path: '/b' })).kind).toBe('pending');
    expect((await call({ path: '/a' }, randomUUID())).kind).toBe('pending');
    files.server.updatedAt = new Date(files.server.updatedAt.getTime() + 1000);
    expect((await call({ path: '/a' })).kind).toBe('pending');
    expect(store.rows.find((row) => row.id === id)?.state).toBe('granted');
  });

  it('binds a built-in tool’s approval to its rules: a changed rule list needs a new one', async () => {
    const { claim, decide, builtIns, verdict } = makeSut();
    const target: ToolTarget = { kind: 'built-in', resource: 'projects' };
    const run = () =>
      claim.execute({
        keyId: KEY,
        userId: OWNER,
        name: 'projects',
        target,
        arguments: { action: 'list' },
        rule: { ...verdict, source: { kind: 'built_in' }, tool: 'projects' },
      });
    const first = await run();
    const id = (first as { error: ApprovalRequiredError }).error.approvalId;
    await decide.execute({ actor: ActorMother.user(OWNER), id, decision: 'granted' });
    builtIns.projects = [{ when: 'true', effect: 'require_approval', message: 'changed' }];
    expect((await run()).kind).toBe('pending');
    builtIns.projects = [{ when: 'true', effect: 'require_approval', message: 'needs a yes' }];
    expect(await run()).toMatchObject({ kind: 'approved', approval: { id } });
  });

  it('refuses the same call while its approval is denied, saying so, and asks again once it expired', async () => {
    const { call, decide, pendingId, clock, actions } = makeSut();
    const id = await pendingId();
    await decide.execute({ actor: ActorMother.user(OWNER), id, decision: 'denied' });
    expect(await call()).toEqual({ kind: 'refused', message: "Refused: this call's approval was denied (rule 0 of write: needs a yes)" });
    clock.advance(61_000);
    expect((await call()).kind).toBe('pending');
    expect(actions()).toEqual(['approval.requested', 'approval.denied', 'approval.requested']);
  });

  it('does not run a call whose granted approval expired: it records approval.expired and asks again', async () => {
    const { call, decide, pendingId, clock, actions } = makeSut();
    const id = await pendingId();
    await decide.execute({ actor: ActorMother.user(OWNER), id, decision: 'granted' });
    clock.advance(60_000);
    const next = await call();
    expect(next.kind).toBe('pending');
    expect((next as { error: ApprovalRequiredError }).error.approvalId).not.toBe(id);
    expect(actions()).toEqual(['approval.requested', 'approval.granted', 'approval.expired', 'approval.requested']);
  });

  it('uses a granted approval once even when two calls race for it', async () => {
    const { call, decide, pendingId } = makeSut();
    const id = await pendingId();
    await decide.execute({ actor: ActorMother.user(OWNER), id, decision: 'granted' });
    const claims = await Promise.all([call(), call()]);
    expect(claims.filter((c) => c.kind === 'approved')).toHaveLength(1);
  });

  it('refuses past the per-key bound of pending approvals, with a clear message', async () => {
    const { call, pendingId } = makeSut();
    for (const n of [1, 2, 3]) await pendingId({ n });
    expect(await call({ n: 4 })).toEqual({
      kind: 'refused',
      message: 'This call needs approval, and this key already has 3 pending approvals: wait for them to be decided or to expire',
    });
  });

  it('never puts the arguments in an audit event', async () => {
    const { pendingId, work } = makeSut();
    await pendingId({ token: 'SECRET-value' });
    expect(JSON.stringify(work.audit.records)).not.toContain('SECRET-value');
    expect(work.audit.records[0].details).toMatchObject({ tool: 'files__write', args_sha256: argumentsSha256({ token: 'SECRET-value' }) });
  });
});

describe('DecideApproval and ListApprovals', () => {
  it('lets the owner decide an owner rule’s approval; anyone else gets a 404, admins included', async () => {
    const { decide, pendingId, list } = makeSut();
    const id = await pendingId();
    await expect(decide.execute({ actor: ActorMother.user(), id, decision: 'granted' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(decide.execute({ actor: ActorMother.admin(), id, decision: 'granted' })).rejects.toBeInstanceOf(NotFoundError);
    expect(await list.execute({ actor: ActorMother.admin() })).toEqual([]);
    expect((await list.execute({ actor: ActorMother.user(OWNER) })).map((a) => a.id)).toEqual([id]);
    expect(await list.execute({ actor: ActorMother.user() })).toEqual([]);
    expect(await decide.execute({ actor: ActorMother.user(OWNER), id, decision: 'granted' })).toMatchObject({
      state: 'granted',
      decidedBy: OWNER,
    });
  });

  it('lets only admins decide an admin rule’s approval, and lists it to them (by user_id too)', async () => {
    const { decide, pendingId, list } = makeSut({ when: 'true', effect: 'require_approval', message: 'admins say', approvers: 'admin' });
    const id = await pendingId();
    await expect(decide.execute({ actor: ActorMother.user(OWNER), id, decision: 'granted' })).rejects.toBeInstanceOf(NotFoundError);
    expect(await list.execute({ actor: ActorMother.user(OWNER) })).toEqual([]);
    const admin = ActorMother.admin();
    expect((await list.execute({ actor: admin })).map((a) => a.id)).toEqual([id]);
    expect((await list.execute({ actor: admin, userId: OWNER })).map((a) => a.id)).toEqual([id]);
    expect(await list.execute({ actor: admin, userId: randomUUID() })).toEqual([]);
    expect(await decide.execute({ actor: admin, id, decision: 'denied' })).toMatchObject({ state: 'denied' });
  });

  it('answers 409 for an approval no longer pending or expired, and 404 for an unknown one', async () => {
    const { decide, pendingId, clock, list } = makeSut();
    const owner = ActorMother.user(OWNER);
    const id = await pendingId({ n: 1 });
    await decide.execute({ actor: owner, id, decision: 'granted' });
    await expect(decide.execute({ actor: owner, id, decision: 'denied' })).rejects.toBeInstanceOf(ConflictError);
    const late = await pendingId({ n: 2 });
    clock.advance(60_000);
    expect(await list.execute({ actor: owner })).toEqual([]);
    await expect(decide.execute({ actor: owner, id: late, decision: 'granted' })).rejects.toBeInstanceOf(ConflictError);
    await expect(decide.execute({ actor: owner, id: randomUUID(), decision: 'granted' })).rejects.toBeInstanceOf(NotFoundError);
  });
});
