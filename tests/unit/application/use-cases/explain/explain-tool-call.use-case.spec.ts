import { ExplainToolCall } from '../../../../../src/application/use-cases/explain/explain-tool-call.use-case';
import { ExplainStep } from '../../../../../src/application/use-cases/explain/explain-step';
import { NotFoundError, ValidationError } from '../../../../../src/domain/errors';
import { ToolRule } from '../../../../../src/domain/tool';
import { InMemoryToolCallApprovalStore } from '../../../../fakes/in-memory-tool-call-approval.store';
import { Sha256ContentDigest } from '../../../../../src/adapters/crypto/sha256-content-digest';
import { boundCall } from '../../../../../src/application/use-cases/approvals/approval-binding';
import { FakeExternalTools } from '../../../../fakes/fake-external-tools';
import { InMemoryMcpConnectionStore } from '../../../../fakes/in-memory-mcp-connection.store';
import { InMemoryQuotaBalances } from '../../../../fakes/in-memory-quota-balances';
import { ActorMother } from '../../../../mothers/actor.mother';
import { KEY_EPOCH } from '../../../../mothers/api-key.mother';
import { ScopeSetMother } from '../../../../mothers/scope-set.mother';
import { makeExplainPorts } from './explain-fixture';

const OWNER = 'owner-1';
const deny = (when: string, message: string): ToolRule => ({ when, effect: 'deny', message });
const ORDER = ['key', 'tool', 'scope', 'pin', 'connection', 'rules', 'rate_limit', 'quota', 'approval'];

function makeSut(rules: Record<string, ToolRule[]> = {}, builtIns: Record<string, ToolRule[]> = {}) {
  const ports = makeExplainPorts(builtIns);
  const external = new FakeExternalTools();
  const echo = external.add(OWNER, 'files__echo', ['mcp_servers:write']);
  echo.server.data.tool_rules = rules;
  external.add(OWNER, 'files__gone', ['mcp_servers:write']);
  const quotas = new InMemoryQuotaBalances();
  const connections = new InMemoryMcpConnectionStore(() => ports.clock.now());
  const approvals = new InMemoryToolCallApprovalStore();
  const sut = new ExplainToolCall({
    keys: ports.keys,
    external,
    pins: ports.pins,
    rules: ports.rules,
    budget: ports.budget,
    quotas,
    connections,
    connectUrl: (id) => `https://keygate.example/console/#/servers/${id}/connect`,
    clock: ports.clock,
    approvals: { store: approvals, digest: new Sha256ContentDigest() },
  });
  const explain = (keyId: string, tool: string, args?: Record<string, unknown>, actor = ActorMother.user(OWNER)) =>
    sut.execute({ actor, keyId, tool, ...(args !== undefined && { arguments: args }) });
  return { ...ports, external, quotas, connections, explain, approvals, echo };
}

function step<N extends ExplainStep['step']>(steps: ExplainStep[], name: N): Extract<ExplainStep, { step: N }> {
  return steps.find((s) => s.step === name) as Extract<ExplainStep, { step: N }>;
}

describe('ExplainToolCall', () => {
  it('answers every step in order, and allows a call every step lets through', async () => {
    const { save, explain, pin } = makeSut();
    await pin('files-id', 'echo');
    const key = save({ userId: OWNER });
    const builtIn = await explain(key.id, 'projects', { action: 'list' });
    expect(builtIn).toMatchObject({ keyId: key.id, tool: 'projects', decision: 'allowed' });
    expect(builtIn.steps.map((s) => s.step)).toEqual(ORDER);
    expect(builtIn.steps.map((s) => s.outcome)).toEqual([
      'pass',
      'pass',
      'pass',
      'not_applicable',
      'not_applicable',
      'pass',
      'not_applicable',
      'not_applicable',
      'not_applicable',
    ]);
    const upstream = await explain(key.id, 'files__echo', {});
    expect(upstream.decision).toBe('allowed');
    expect(step(upstream.steps, 'pin')).toMatchObject({ outcome: 'pass', status: 'approved' });
    expect(step(upstream.steps, 'scope')).toMatchObject({ required: ['mcp_servers:write'], missing: [] });
  });

  describe('connection', () => {
    it("passes a static server, and for a per-user one asks for the owner's connection: none or failed names the connect page", async () => {
      const { save, explain, pin, external, connections } = makeSut();
      await pin('files-id', 'echo');
      const key = save({ userId: OWNER });
      expect(step((await explain(key.id, 'files__echo', {})).steps, 'connection')).toMatchObject({ outcome: 'not_applicable' });
      const record = external.add(OWNER, 'files__echo', ['mcp_servers:write']).server;
      record.data.auth = { type: 'user_secret', header: 'Authorization' };
      const unconnected = await explain(key.id, 'files__echo', {});
      expect(unconnected).toMatchObject({ decision: 'refused', reason: expect.stringContaining('is not connected to files') });
      expect(step(unconnected.steps, 'connection')).toMatchObject({
        outcome: 'fail',
        connectUrl: 'https://keygate.example/console/#/servers/files-id/connect',
      });
      await connections.saveSecret(OWNER, record.id, 'sk-1');
      expect(step((await explain(key.id, 'files__echo', {})).steps, 'connection')).toMatchObject({ outcome: 'pass' });
      record.data.auth = { type: 'oauth' };
      const as = { issuer: 'https://as', authorizationEndpoint: 'https://as/a', tokenEndpoint: 'https://as/t' };
      await connections.saveGrant(OWNER, record.id, {
        tokens: { accessToken: 'at', scopes: [], tokenType: 'Bearer' },
        client: { issuer: 'https://as', clientId: 'c', tokenEndpointAuth: 'none', source: 'dynamic' },
        authorizationServer: { ...as, clientIdMetadataDocumentSupported: false, issParameterSupported: false },
        resource: 'https://files.example/mcp',
      });
      expect(step((await explain(key.id, 'files__echo', {})).steps, 'connection')).toMatchObject({ outcome: 'pass' });
      await connections.markFailed(OWNER, record.id);
      expect((await explain(key.id, 'files__echo', {})).reason).toContain('has a connection that failed');
      record.data.auth = { type: 'token_exchange', token_endpoint: 'https://as/t', audience: 'a', client_id: 'c' };
      expect((await explain(key.id, 'files__echo', {})).reason).toContain('a key has none');
    });
  });

  describe('key state', () => {
    it.each([
      ['revoked', { revokedAt: KEY_EPOCH }, /^The key was revoked at 2026-06-01T12:00:00.000Z$/],
      ['expired', { expiresAt: new Date(KEY_EPOCH.getTime() - 1000) }, /^The key expired at /],
    ])('refuses for a %s key, and still judges the other steps', async (state, overrides, reason) => {
      const { save, explain } = makeSut();
      const key = save({ userId: OWNER, ...overrides });
      const answer = await explain(key.id, 'projects', { action: 'list' });
      expect(answer).toMatchObject({ decision: 'refused', reason: expect.stringMatching(reason) });
      expect(step(answer.steps, 'key')).toMatchObject({ outcome: 'fail', key: { state, usable: false } });
      expect(step(answer.steps, 'scope').outcome).toBe('pass');
    });

    it('says a rolled key is usable until its grace period ends, and not after', async () => {
      const { save, explain, clock } = makeSut();
      const graceEnd = new Date(KEY_EPOCH.getTime() + 60_000);
      const key = save({ userId: OWNER, replacedBy: 'successor-id', expiresAt: graceEnd });
      const within = await explain(key.id, 'projects', { action: 'list' });
      expect(within.decision).toBe('allowed');
      expect(step(within.steps, 'key')).toMatchObject({
        outcome: 'pass',
        key: { state: 'rolled', usable: true, replacedBy: 'successor-id', graceEndsAt: graceEnd },
      });
      clock.advance(60_000);
      const past = await explain(key.id, 'projects', { action: 'list' });
      expect(past).toMatchObject({
        decision: 'refused',
        reason: expect.stringContaining('its grace period ended at 2026-06-01T12:01:00.000Z'),
      });
      expect(step(past.steps, 'key').key).toMatchObject({ state: 'rolled', usable: false });
    });

    it('says a key rolled without a grace period cannot be used', async () => {
      const { save, explain } = makeSut();
      const key = save({ userId: OWNER, replacedBy: 'successor-id', revokedAt: KEY_EPOCH });
      const answer = await explain(key.id, 'projects', { action: 'list' });
      expect(step(answer.steps, 'key')).toMatchObject({ outcome: 'fail', key: { state: 'rolled', graceEndsAt: null } });
      expect(answer.reason).toContain('with no grace period');
    });
  });

  it('names an unknown tool, and a server tool keygate never saw listed, without a 500', async () => {
    const { save, explain, pin } = makeSut();
    await pin('files-id', 'echo');
    const key = save({ userId: OWNER });
    for (const name of ['nope', 'files__gone', 'other__echo']) {
      const answer = await explain(key.id, name);
      expect(answer).toMatchObject({ decision: 'refused', reason: expect.stringMatching(new RegExp(`^No tool ${name} is offered`)) });
      expect(answer.steps.map((s) => s.outcome)).toEqual([
        'pass',
        'fail',
        'not_applicable',
        'not_applicable',
        'not_applicable',
        'not_applicable',
        'not_applicable',
        'not_applicable',
        'not_applicable',
      ]);
    }
  });

  it('compares the required scopes with the granted ones: per action for a built-in, the call scopes for an upstream tool', async () => {
    const { save, explain, pin } = makeSut();
    await pin('files-id', 'echo');
    const key = save({ userId: OWNER, scopes: ScopeSetMother.of('projects:read', 'mcp_servers:read') });
    const write = await explain(key.id, 'projects', { action: 'create' });
    expect(write).toMatchObject({ decision: 'refused', reason: 'The key lacks projects:write' });
    expect(step(write.steps, 'scope')).toMatchObject({
      outcome: 'fail',
      required: ['projects:write'],
      granted: ['projects:read', 'mcp_servers:read'],
      missing: ['projects:write'],
    });
    expect((await explain(key.id, 'projects', { action: 'get' })).decision).toBe('allowed');
    expect(step((await explain(key.id, 'files__echo', {})).steps, 'scope')).toMatchObject({
      outcome: 'fail',
      missing: ['mcp_servers:write'],
    });
  });

  it('refuses a tool whose definition changed since it was approved (withheld)', async () => {
    const { save, explain, pin, change } = makeSut();
    await pin('files-id', 'echo');
    await change('files-id', 'echo');
    const answer = await explain(save({ userId: OWNER }).id, 'files__echo', {});
    expect(answer).toMatchObject({
      decision: 'refused',
      reason: expect.stringMatching(/^The definition of the tool echo on the MCP server files changed/),
    });
    expect(step(answer.steps, 'pin')).toMatchObject({ outcome: 'fail', status: 'changed' });
  });

  describe('rules', () => {
    const RULES = {
      echo: [
        deny('has(args.text) && args.text.startsWith("rm ")', 'No rm'),
        deny('int(args.n) > 3', 'n at most 3'),
        { when: 'args.n == 0.0', effect: 'require_approval', message: 'n of 0 needs a yes' } as ToolRule,
      ],
    };

    async function subject() {
      const sut = makeSut(RULES);
      await sut.pin('files-id', 'echo');
      return { ...sut, key: sut.save({ userId: OWNER }) };
    }

    it('shows each rule with its index and message, the one that matched, and those not looked at', async () => {
      const { explain, key } = await subject();
      const answer = await explain(key.id, 'files__echo', { text: 'rm -rf /' });
      expect(answer).toMatchObject({ decision: 'refused', reason: 'Refused by rule 0 of echo: No rm' });
      expect(step(answer.steps, 'rules')).toMatchObject({
        outcome: 'fail',
        rules: [
          { index: 0, effect: 'deny', message: 'No rm', outcome: 'matched' },
          { index: 1, effect: 'deny', message: 'n at most 3', outcome: 'not_evaluated' },
          { index: 2, effect: 'require_approval', message: 'n of 0 needs a yes', outcome: 'not_evaluated' },
        ],
      });
    });

    it('shows an evaluation error with the library text, refusing (fail closed)', async () => {
      const { explain, key } = await subject();
      const answer = await explain(key.id, 'files__echo', { text: 'hi', n: 'many' });
      expect(answer.decision).toBe('refused');
      expect(step(answer.steps, 'rules').rules.map((r) => r.outcome)).toEqual(['not_matched', 'error', 'not_evaluated']);
      expect(step(answer.steps, 'rules').rules[1].error).toEqual(expect.any(String));
    });

    it('says a rule needs the arguments when none are given, without deciding', async () => {
      const { explain, key } = await subject();
      const answer = await explain(key.id, 'files__echo');
      expect(answer).toMatchObject({
        decision: 'needs_arguments',
        reason: expect.stringContaining("rule 0 of echo reads the call's arguments"),
      });
      expect(step(answer.steps, 'rules')).toMatchObject({
        outcome: 'needs_arguments',
        rules: [{ index: 0, outcome: 'needs_arguments' }, { outcome: 'not_evaluated' }, { outcome: 'not_evaluated' }],
      });
    });

    it('says a require_approval match needs an approval, and which one this very call would meet, without using it', async () => {
      const { explain, key, approvals, echo, rules, clock } = await subject();
      const answer = await explain(key.id, 'files__echo', { n: 0 });
      expect(step(answer.steps, 'rules')).toMatchObject({
        outcome: 'pass',
        rules: [{ outcome: 'not_matched' }, { outcome: 'not_matched' }, { outcome: 'matched' }],
      });
      expect(step(answer.steps, 'approval')).toMatchObject({ outcome: 'fail', needed: true, approval: 'needed' });
      expect(answer).toMatchObject({
        decision: 'refused',
        reason:
          "This call would need an approval (rule 2 of echo: n of 0 needs a yes): the call asks for one, which the key's approver then decides",
      });
      const plain = await explain(key.id, 'files__echo', { n: 1 });
      expect(step(plain.steps, 'approval')).toMatchObject({ outcome: 'not_applicable', needed: false });
      // An approval of this call (n: 0), as a call on /mcp would have made it.
      const set = (await rules.rulesFor({ kind: 'external', tool: echo }))!;
      const { binding } = boundCall(key.id, { kind: 'external', tool: echo }, { n: 0 }, set, new Sha256ContentDigest());
      const now = clock.now();
      const held = (await approvals.createWithinLimit(
        {
          ...binding,
          userId: OWNER,
          toolName: 'files__echo',
          serverName: 'files',
          arguments: { n: 0 },
          ruleIndex: 2,
          ruleMessage: 'm',
          approvers: 'owner',
          createdAt: now,
          expiresAt: new Date(now.getTime() + 60_000),
        },
        20,
        now,
      ))!;
      expect(step((await explain(key.id, 'files__echo', { n: 0 })).steps, 'approval')).toMatchObject({
        outcome: 'fail',
        approval: 'pending',
        approvalId: held.id,
      });
      await approvals.decide(held.id, 'granted', OWNER, now);
      const granted = await explain(key.id, 'files__echo', { n: 0 });
      expect(step(granted.steps, 'approval')).toMatchObject({ outcome: 'pass', approval: 'granted', approvalId: held.id });
      expect(granted.decision).toBe('allowed');
      // Read only: still granted, and other arguments have none.
      expect((await approvals.find(held.id))?.state).toBe('granted');
      expect(step((await explain(key.id, 'files__echo', { n: 0, x: 1 })).steps, 'approval')).toMatchObject({ approval: 'needed' });
      clock.advance(60_000);
      expect(step((await explain(key.id, 'files__echo', { n: 0 })).steps, 'approval')).toMatchObject({ approval: 'needed' });
    });

    it("reads the built-in tools' rules too", async () => {
      const { save, explain } = makeSut({}, { projects: [deny('args.action == "delete"', 'No deletes')] });
      const answer = await explain(save({ userId: OWNER }).id, 'projects', { action: 'delete' });
      expect(answer).toMatchObject({ decision: 'refused', reason: 'Refused by rule 0 of projects: No deletes' });
    });
  });

  describe('rate limit and quota, read without spending', () => {
    it('shows the rate window left, and a used-up one refuses', async () => {
      const { save, explain, budget, clock } = makeSut();
      const key = save({ userId: OWNER, rateLimit: { limit: 2, windowSeconds: 60 } });
      expect(step((await explain(key.id, 'projects', { action: 'list' })).steps, 'rate_limit')).toMatchObject({
        outcome: 'pass',
        remaining: 2,
        limit: 2,
        windowSeconds: 60,
      });
      await budget.inner.admitRequest(key.budgetId, { limit: 2, windowSeconds: 60 }, clock.now());
      await budget.inner.admitRequest(key.budgetId, { limit: 2, windowSeconds: 60 }, clock.now());
      // The ReadOnlyBudget throws if explain counts or charges anything: asking twice sees the same.
      for (let i = 0; i < 2; i += 1) {
        const answer = await explain(key.id, 'projects', { action: 'list' });
        expect(step(answer.steps, 'rate_limit')).toMatchObject({ outcome: 'fail', remaining: 0 });
        expect(answer.reason).toMatch(/^The rate limit \(2 requests per 60 s\) is used up/);
      }
    });

    it('shows the quota left, and an empty one refuses', async () => {
      const { save, explain, quotas, clock } = makeSut();
      const key = save({ userId: OWNER, quota: { refill: null } });
      await quotas.set(key.budgetId, { remaining: 3, refill: null }, clock.now());
      expect(step((await explain(key.id, 'projects', { action: 'list' })).steps, 'quota')).toMatchObject({ outcome: 'pass', remaining: 3 });
      expect((await quotas.read([key.budgetId], clock.now())).get(key.budgetId)).toBe(3);
      await quotas.set(key.budgetId, { remaining: 0, refill: null }, clock.now());
      const empty = await explain(key.id, 'projects', { action: 'list' });
      expect(empty).toMatchObject({ decision: 'refused', reason: 'The quota is used up until its next refill' });
      expect(step(empty.steps, 'quota')).toMatchObject({ outcome: 'fail', remaining: 0 });
    });
  });

  describe('who may ask', () => {
    it("lets an admin explain another user's key; another user gets 404 as for an unknown id", async () => {
      const { save, explain } = makeSut();
      const key = save({ userId: OWNER });
      expect((await explain(key.id, 'projects', { action: 'list' }, ActorMother.admin())).decision).toBe('allowed');
      await expect(explain(key.id, 'projects', {}, ActorMother.user('someone-else'))).rejects.toThrow(NotFoundError);
      await expect(explain('6f1d1c1e-0000-4000-8000-000000000000', 'projects')).rejects.toThrow(NotFoundError);
      await expect(explain('not-a-uuid', 'projects')).rejects.toThrow(ValidationError);
    });
  });

  it('contacts no upstream: the tool is resolved by name only, and no tool runs', async () => {
    const { save, explain, pin, external } = makeSut();
    await pin('files-id', 'echo');
    await explain(save({ userId: OWNER }).id, 'files__echo', {});
    expect(external.runs).toEqual([]);
  });
});
