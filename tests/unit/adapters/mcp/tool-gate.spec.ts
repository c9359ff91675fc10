import { Response } from 'express';
import { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ToolCall } from '../../../../src/adapters/mcp/tool-call-recorder';
import { authorizeToolCalls, NO_CALLS } from '../../../../src/adapters/mcp/tool-gate';
import {
  AuthorizeToolCallInput,
  ToolCallDecision,
  ToolTarget,
} from '../../../../src/application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { KeyPrincipal } from '../../../../src/application/use-cases/validate-key/validate-key.use-case';
import { ApprovalClaim } from '../../../../src/application/use-cases/approvals/claim-tool-call-approval.use-case';
import { ApprovalRequiredError } from '../../../../src/domain/errors';
import { ScopeSetMother } from '../../../mothers/scope-set.mother';

const principal: KeyPrincipal = {
  keyId: 'k',
  userId: 'alice',
  scopes: ScopeSetMother.of('projects:read'),
  budgetId: 'k',
  rateLimit: null,
  hasQuota: false,
};
const projects: ToolTarget = { kind: 'built-in', resource: 'projects' };
/** For tests about what is allowed: a denial there would be a failure of its own. */
const noDenial = async () => {
  throw new Error('no call should be denied here');
};

/** Decides by tool name, and remembers what it was asked. */
function makeAuthorize(decisions: Record<string, ToolCallDecision>) {
  const asked: AuthorizeToolCallInput[] = [];
  return {
    asked,
    execute: async (input: AuthorizeToolCallInput) => {
      asked.push(input);
      return decisions[input.name] ?? { kind: 'unknown' };
    },
  };
}

/** The part of an Express response the gate writes to. */
function makeRes() {
  const sent = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown };
  const res = {
    setHeader: (name: string, value: string) => ((sent.headers[name] = value), res),
    status: (code: number) => ((sent.status = code), res),
    type: () => res,
    send: (body: string) => ((sent.body = JSON.parse(body)), res),
  };
  return { sent, res: res as unknown as Response };
}

const call = (id: number | string, name: string, args?: Record<string, unknown>): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, ...(args && { arguments: args }) },
});

describe('authorizeToolCalls (the tool gate)', () => {
  it('authorizes nothing and answers nothing for a POST without tools/call', async () => {
    const authorize = makeAuthorize({});
    const { sent, res } = makeRes();
    const messages: JSONRPCMessage[] = [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ];
    expect(await authorizeToolCalls(authorize, principal, messages, res, noDenial)).toBe(NO_CALLS);
    expect(authorize.asked).toEqual([]);
    expect(sent.status).toBe(0);
  });

  it("authorizes each call once, with the key's user, scopes, the key for its rules and the call's arguments, and hands on the targets by name", async () => {
    const files = { kind: 'external', tool: { server: {}, tool: 'read', callScopes: [] } } as unknown as ToolTarget;
    const authorize = makeAuthorize({ projects: { kind: 'allowed', target: projects }, files__read: { kind: 'allowed', target: files } });
    const { sent, res } = makeRes();
    const messages = [
      call(1, 'projects', { action: 'list' }),
      call(2, 'files__read'),
      call(3, 'nope__x'),
      { jsonrpc: '2.0', id: 4, method: 'ping' } as JSONRPCMessage,
    ];
    const calls = await authorizeToolCalls(authorize, principal, messages, res, noDenial);
    expect(calls).toEqual(
      new Map([
        ['projects', projects],
        ['files__read', files],
        ['nope__x', null],
      ]),
    );
    const caller = { keyId: 'k', keyName: '', admin: false };
    expect(authorize.asked).toEqual([
      { userId: 'alice', scopes: principal.scopes, name: 'projects', arguments: { action: 'list' }, caller },
      { userId: 'alice', scopes: principal.scopes, name: 'files__read', arguments: undefined, caller },
      { userId: 'alice', scopes: principal.scopes, name: 'nope__x', arguments: undefined, caller },
    ]);
    expect(sent.status).toBe(0);
  });

  it("hands on the OAuth access token a caller came with as the subject token (a token_exchange server's), and none for a key", async () => {
    const authorize = makeAuthorize({});
    const { res } = makeRes();
    const byToken: KeyPrincipal = { ...principal, accessToken: { expiresAt: new Date(2_000_000_000_000), token: 'eyJ.subject.sig' } };
    await authorizeToolCalls(authorize, byToken, [call(1, 'files__read')], res, noDenial);
    await authorizeToolCalls(authorize, principal, [call(2, 'files__read')], res, noDenial);
    expect(authorize.asked.map((input) => input.subjectToken)).toEqual(['eyJ.subject.sig', undefined]);
  });

  it('leaves out notifications and calls whose params params-check refuses', async () => {
    const authorize = makeAuthorize({});
    const { res } = makeRes();
    const notification = { jsonrpc: '2.0', method: 'tools/call', params: { name: 'projects' } } as JSONRPCMessage;
    const nameless = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { arguments: {} } } as JSONRPCMessage;
    expect(await authorizeToolCalls(authorize, principal, [notification, nameless], res, noDenial)).toBe(NO_CALLS);
    expect(authorize.asked).toEqual([]);
  });

  it('answers a denied call with HTTP 403 and an insufficient_scope challenge, reports it once, and asks about no later call', async () => {
    const authorize = makeAuthorize({
      projects: { kind: 'allowed', target: projects },
      agents: { kind: 'denied', scopes: ['agents:write', 'chat:read'], required: ['agents:write', 'chat:read', 'models:read'] },
    });
    const { sent, res } = makeRes();
    const denied: ToolCall[] = [];
    const messages = [call(1, 'projects'), call('b', 'agents', { action: 'create' }), call(3, 'projects')];
    const calls = await authorizeToolCalls(authorize, principal, messages, res, async (c) => {
      denied.push(c);
    });
    expect(calls).toBeNull();
    expect(denied).toEqual([
      { name: 'agents', arguments: { action: 'create' }, requiredScopes: ['agents:write', 'chat:read', 'models:read'] },
    ]);
    expect(authorize.asked.map((input) => input.name)).toEqual(['projects', 'agents']);
    expect(sent.status).toBe(403);
    expect(sent.headers['WWW-Authenticate']).toBe('Bearer error="insufficient_scope", scope="agents:write chat:read"');
    expect(sent.body).toEqual({
      jsonrpc: '2.0',
      id: 'b',
      error: {
        code: -32003,
        message: 'Insufficient scope: calling agents this way needs agents:write chat:read',
        data: { required_scopes: ['agents:write', 'chat:read'] },
      },
    });
  });

  it('answers the 403 only once the denial is recorded, and not at all when it cannot be', async () => {
    const authorize = makeAuthorize({ agents: { kind: 'denied', scopes: ['agents:read'], required: ['agents:read'] } });
    let recorded!: () => void;
    const { sent, res } = makeRes();
    const gate = authorizeToolCalls(
      authorize,
      principal,
      [call(1, 'agents')],
      res,
      () => new Promise<void>((resolve) => (recorded = resolve)),
    );
    await new Promise((r) => setImmediate(r));
    expect(sent.status).toBe(0);
    recorded();
    expect(await gate).toBeNull();
    expect(sent.status).toBe(403);

    const outage = new Error('database away');
    const { sent: unsent, res: untouched } = makeRes();
    await expect(
      authorizeToolCalls(authorize, principal, [call(2, 'agents')], untouched, async () => {
        throw outage;
      }),
    ).rejects.toBe(outage);
    expect(unsent.status).toBe(0);
  });

  it("answers a call a rule refused with 403 and the rule's message, no challenge, and reports the rule (not its message)", async () => {
    const rule = {
      source: { kind: 'server' as const, recordId: 'r1' },
      tool: 'read',
      index: 1,
      effect: 'deny' as const,
      message: 'not here',
      outcome: 'matched' as const,
    };
    const authorize = makeAuthorize({
      files__read: {
        kind: 'refused',
        rule,
        message: 'Refused by rule 1 of read: not here',
        required: ['mcp_servers:write'],
        steps: [],
        target: { kind: 'built-in', resource: 'projects' },
      },
    });
    const { sent, res } = makeRes();
    const denied: ToolCall[] = [];
    const named: KeyPrincipal = { ...principal, keyName: 'ci' };
    expect(
      await authorizeToolCalls(authorize, named, [call(5, 'files__read', { path: '/etc' })], res, async (c) => void denied.push(c)),
    ).toBeNull();
    expect(authorize.asked[0].caller).toEqual({ keyId: 'k', keyName: 'ci', admin: false });
    expect(denied).toEqual([
      {
        name: 'files__read',
        arguments: { path: '/etc' },
        requiredScopes: ['mcp_servers:write'],
        rule: { source: 'server', server_id: 'r1', index: 1, effect: 'deny', outcome: 'matched' },
      },
    ]);
    expect(sent.status).toBe(403);
    expect(sent.headers['WWW-Authenticate']).toBeUndefined();
    expect(sent.body).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32003, message: 'Refused by rule 1 of read: not here', data: { rule: { tool: 'read', index: 1 } } },
    });
  });

  it('gives the rules of a call made with an access token no key id', async () => {
    const authorize = makeAuthorize({});
    const byToken: KeyPrincipal = { ...principal, accessToken: { expiresAt: new Date(2_000_000_000_000), token: 'eyJ.subject.sig' } };
    await authorizeToolCalls(authorize, byToken, [call(1, 'files__read')], makeRes().res, noDenial);
    expect(authorize.asked[0].caller).toEqual({ keyId: '', keyName: '', admin: false });
  });
  describe('a require_approval match, with approvals', () => {
    const rule = {
      source: { kind: 'server' as const, recordId: 'r1' },
      tool: 'write',
      index: 0,
      effect: 'require_approval' as const,
      message: 'needs a yes',
      outcome: 'matched' as const,
    };
    const refused: ToolCallDecision = { kind: 'refused', rule, message: 'refused', required: [], steps: [], target: projects };
    const held = new ApprovalRequiredError('a1', '/console/#/approvals/a1', 'rule 0 of write: needs a yes');
    const claims = (claim: ApprovalClaim) => {
      const asked: unknown[] = [];
      return { asked, execute: async (input: unknown) => (asked.push(input), claim) };
    };

    it('runs a call whose approval it used up, and holds one waiting for its approval (no 403, nothing denied)', async () => {
      const authorize = makeAuthorize({ projects: refused });
      const approved = claims({ kind: 'approved', approval: {} as never });
      const { res, sent } = makeRes();
      const calls = await authorizeToolCalls(
        authorize,
        principal,
        [call(1, 'projects', { a: 1 })],
        res,
        noDenial,
        undefined,
        undefined,
        approved,
      );
      expect(calls?.get('projects')).toBe(projects);
      expect(approved.asked).toEqual([
        expect.objectContaining({ keyId: 'k', name: 'projects', arguments: { a: 1 }, rule, target: projects }),
      ]);
      const pending = claims({ kind: 'pending', error: held });
      const waiting = await authorizeToolCalls(authorize, principal, [call(2, 'projects')], res, noDenial, undefined, undefined, pending);
      expect(waiting?.get('projects')).toEqual({ kind: 'held', error: held });
      expect(sent.status).toBe(0);
    });

    it('keeps a name held in a batch when another call of it, with other arguments, was approved', async () => {
      const authorize = makeAuthorize({ projects: refused });
      let n = 0;
      const claim = {
        execute: async (): Promise<ApprovalClaim> =>
          n++ === 0 ? { kind: 'pending', error: held } : { kind: 'approved', approval: {} as never },
      };
      const batch = [call(1, 'projects', { a: 'unapproved' }), call(2, 'projects', { a: 'approved' })];
      const calls = await authorizeToolCalls(authorize, principal, batch, makeRes().res, noDenial, undefined, undefined, claim);
      expect(calls?.get('projects')).toEqual({ kind: 'held', error: held });
    });

    it("refuses with the claim's message (a denied approval) as a rule refusal, and never asks for an access token's call", async () => {
      const authorize = makeAuthorize({ projects: refused });
      const denied = claims({ kind: 'refused', message: "Refused: this call's approval was denied" });
      const { res, sent } = makeRes();
      const recorded: ToolCall[] = [];
      const record = async (c: ToolCall) => void recorded.push(c);
      expect(await authorizeToolCalls(authorize, principal, [call(3, 'projects')], res, record, undefined, undefined, denied)).toBeNull();
      expect(recorded).toHaveLength(1);
      expect(sent.body).toMatchObject({ error: { code: -32003, message: "Refused: this call's approval was denied" } });
      const byToken: KeyPrincipal = { ...principal, accessToken: { expiresAt: new Date(2_000_000_000_000), token: 'eyJ.subject.sig' } };
      const unused = claims({ kind: 'approved', approval: {} as never });
      const second = makeRes();
      expect(
        await authorizeToolCalls(authorize, byToken, [call(4, 'projects')], second.res, record, undefined, undefined, unused),
      ).toBeNull();
      expect(unused.asked).toEqual([]);
      expect(second.sent.body).toMatchObject({ error: { message: 'refused' } });
    });
  });
});
