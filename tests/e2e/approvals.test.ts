import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { serve, startTwoReplicas, TwoReplicas } from '../support/app-replicas';
import { call, makeKey, rpc, TestKey } from '../support/mcp-keys';
import { TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

jest.setTimeout(90_000);

/**
 * Per-call approval (issue 28, increment 3): a require_approval rule holds
 * the call and names the console's approval page (a tool error, -32042 for a
 * 2025-11-25 session that declared URL elicitation, input_required for a
 * 2026-07-28 request that did); the owner (or an admin, by the rule) approves
 * or denies over REST; the same call then runs exactly once, across replicas.
 */
const MARKER = 'deploy prod token-9f3a';
const PAGE = /\/console\/#\/approvals\/([0-9a-f-]{36})/;
const RULES = { echo: [{ when: 'args.text.startsWith("deploy")', effect: 'require_approval', message: 'deploys need a yes' }] };

let replicas: TwoReplicas;
let t: TestApp;
let upstream: UpstreamMcpServer;
let owner: TestKey;

beforeAll(async () => {
  replicas = await startTwoReplicas({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '2000' });
  t = replicas.a;
  upstream = await startUpstream();
  owner = await makeKey(t);
  const res = await rpc(
    t,
    owner,
    call(1, 'mcp_servers', { action: 'create', data: { name: 'files', url: upstream.url, tool_rules: RULES } }),
  );
  expect(res.body.result.isError).toBeUndefined();
});
afterAll(async () => {
  await upstream?.stop();
  await replicas?.close();
});

const owners = (key: TestKey) => `Bearer ${t.userToken(key.user)}`;

/** The approval a held call's tool error names. */
function heldId(body: any): string {
  expect(body.result).toMatchObject({ isError: true });
  const text: string = body.result.content[0].text;
  expect(text).toContain('This call needs approval (rule 0 of echo: deploys need a yes)');
  return PAGE.exec(text)![1];
}
async function held(key: TestKey, text: string): Promise<string> {
  return heldId((await rpc(t, key, call(2, 'files__echo', { text })).expect(200)).body);
}
const decide = (key: TestKey, id: string, verb: 'approve' | 'deny') =>
  request(t.app).post(`/api/v1/approvals/${id}/${verb}`).set('Authorization', owners(key));
const events = async (user: string, action: string): Promise<any[]> =>
  t.db.dataSource.query(`SELECT details FROM audit_events WHERE user_id = $1 AND action = $2 ORDER BY seq`, [user, action]);

describe('a call a require_approval rule holds', () => {
  it('gets a tool error naming the approval page; the owner sees the call and its arguments, approves, and it runs once', async () => {
    const id = await held(owner, MARKER);
    const listed = await request(t.app).get('/api/v1/approvals').set('Authorization', owners(owner)).expect(200);
    expect(listed.body).toEqual([
      expect.objectContaining({
        id,
        key_id: owner.id,
        tool: 'files__echo',
        server: 'files',
        arguments: { text: MARKER },
        arguments_truncated: false,
        rule: { index: 0, message: 'deploys need a yes' },
        approvers: 'owner',
        state: 'pending',
      }),
    ]);
    // The same call while it waits names the same approval; nothing reached the upstream.
    expect(await held(owner, MARKER)).toBe(id);
    // Nobody else may list or decide it.
    const stranger = `Bearer ${t.userToken()}`;
    expect((await request(t.app).get('/api/v1/approvals').set('Authorization', stranger).expect(200)).body).toEqual([]);
    await request(t.app).post(`/api/v1/approvals/${id}/approve`).set('Authorization', stranger).expect(404);
    await request(t.app).post(`/api/v1/approvals/${id}/approve`).set('Authorization', `Bearer ${t.adminToken()}`).expect(404);
    expect((await decide(owner, id, 'approve').expect(200)).body).toMatchObject({ id, state: 'granted' });
    await decide(owner, id, 'deny').expect(409);
    const ran = await rpc(t, owner, call(3, 'files__echo', { text: MARKER })).expect(200);
    expect(ran.body.result.structuredContent).toEqual({ text: MARKER });
    // Used up: the same call again needs a new approval.
    const again = await held(owner, MARKER);
    expect(again).not.toBe(id);
    expect(await events(owner.user, 'approval.used')).toHaveLength(1);
    expect((await events(owner.user, 'approval.requested')).length).toBeGreaterThanOrEqual(2);
    const trail = await t.db.dataSource.query(`SELECT details FROM audit_events WHERE user_id = $1`, [owner.user]);
    expect(JSON.stringify(trail)).not.toContain('token-9f3a');
    // The arguments rest sealed.
    const [row] = await t.db.dataSource.query(`SELECT * FROM tool_call_approvals WHERE id = $1`, [id]);
    expect(JSON.stringify(row)).not.toContain('token-9f3a');
  });

  it('does not let an approval serve other arguments or another key', async () => {
    const key = await makeKey(t, [], owner.user);
    const id = await held(key, 'deploy a');
    await decide(key, id, 'approve').expect(200);
    expect(await held(key, 'deploy b')).not.toBe(id);
    const other = await makeKey(t, [], owner.user);
    expect(await held(other, 'deploy a')).not.toBe(id);
    const [{ state }] = await t.db.dataSource.query(`SELECT state FROM tool_call_approvals WHERE id = $1`, [id]);
    expect(state).toBe('granted');
    expect((await rpc(t, key, call(4, 'files__echo', { text: 'deploy a' })).expect(200)).body.result.structuredContent).toEqual({
      text: 'deploy a',
    });
  });

  it("serves the same call on the server's own endpoint: the binding is the server's tool, not the name called", async () => {
    const key = await makeKey(t, [], owner.user);
    const id = await held(key, 'deploy here');
    await decide(key, id, 'approve').expect(200);
    const ran = await request(t.app)
      .post('/mcp/servers/files')
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream')
      .set('Authorization', `Bearer ${key.raw}`)
      .send(JSON.stringify(call(7, 'echo', { text: 'deploy here' })))
      .expect(200);
    expect(ran.body.result.structuredContent).toEqual({ text: 'deploy here' });
    expect(await held(key, 'deploy here')).not.toBe(id);
  });

  it('refuses the same call once denied, saying so', async () => {
    const key = await makeKey(t);
    await rpc(t, key, call(1, 'mcp_servers', { action: 'create', data: { name: 'files', url: upstream.url, tool_rules: RULES } })).expect(
      200,
    );
    const id = await held(key, 'deploy x');
    await decide(key, id, 'deny').expect(200);
    const refused = await rpc(t, key, call(5, 'files__echo', { text: 'deploy x' })).expect(403);
    expect(refused.body.error).toMatchObject({
      code: -32003,
      message: "Refused: this call's approval was denied (rule 0 of echo: deploys need a yes)",
    });
    expect(await events(key.user, 'approval.denied')).toHaveLength(1);
  });

  it('asks again once the approval expired, and an expired approval cannot be decided', async () => {
    const key = await makeKey(t, [], owner.user);
    const id = await held(key, 'deploy late');
    await decide(key, id, 'approve').expect(200);
    await t.db.dataSource.query(`UPDATE tool_call_approvals SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    const next = await held(key, 'deploy late');
    expect(next).not.toBe(id);
    await t.db.dataSource.query(`UPDATE tool_call_approvals SET expires_at = now() - interval '1 second' WHERE id = $1`, [next]);
    await decide(key, next, 'approve').expect(409);
    const expired = await t.db.dataSource.query(`SELECT target_id FROM audit_events WHERE action = 'approval.expired' AND key_id = $1`, [
      key.id,
    ]);
    expect(expired.map((e: { target_id: string }) => e.target_id)).toEqual([id]);
  });
});

describe('explain', () => {
  it('answers the approval this very call would meet: needed, pending, granted, then needed again once used, using nothing', async () => {
    const key = await makeKey(t, [], owner.user);
    const explain = async () =>
      (
        await request(t.app)
          .post('/api/v1/authz/explain')
          .set('Authorization', owners(key))
          .send({ key_id: key.id, tool: 'files__echo', arguments: { text: 'deploy explained' } })
          .expect(200)
      ).body.steps.find((step: { step: string }) => step.step === 'approval');
    expect(await explain()).toMatchObject({ outcome: 'fail', needed: true, approval: 'needed' });
    const id = await held(key, 'deploy explained');
    expect(await explain()).toMatchObject({ outcome: 'fail', approval: 'pending', approval_id: id });
    await decide(key, id, 'approve').expect(200);
    expect(await explain()).toMatchObject({ outcome: 'pass', approval: 'granted', approval_id: id });
    expect(await explain()).toMatchObject({ approval: 'granted' });
    await rpc(t, key, call(6, 'files__echo', { text: 'deploy explained' })).expect(200);
    expect(await explain()).toMatchObject({ approval: 'needed' });
  });
});

describe('how the client is asked', () => {
  it('is -32042 with the approval page for a 2025-11-25 session that declared URL elicitation', async () => {
    const server = await serve(t.app);
    try {
      const client = new Client({ name: 'approval-test', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${owner.raw}` } },
        }),
      );
      const failure: any = await client.callTool({ name: 'files__echo', arguments: { text: 'deploy elicited' } }).catch((e: unknown) => e);
      await client.close();
      expect(failure.code).toBe(-32042);
      const [elicitation] = failure.data.elicitations;
      expect(elicitation).toMatchObject({ mode: 'url', url: expect.stringMatching(new RegExp(`^${server.url}/console/#/approvals/`)) });
      expect(elicitation.elicitationId).toBe(PAGE.exec(elicitation.url)![1]);
    } finally {
      await server.close();
    }
  });

  it('is input_required with the approval page for a 2026-07-28 request that declared it', async () => {
    const V = '2026-07-28';
    const meta = {
      'io.modelcontextprotocol/protocolVersion': V,
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } },
    };
    const res = await request(t.app)
      .post('/mcp')
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream')
      .set('Authorization', `Bearer ${owner.raw}`)
      .set('MCP-Protocol-Version', V)
      .set('Mcp-Method', 'tools/call')
      .set('Mcp-Name', 'files__echo')
      .send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'm1',
          method: 'tools/call',
          params: { name: 'files__echo', arguments: { text: 'deploy modern' }, _meta: meta },
        }),
      )
      .expect(200);
    expect(res.body.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
    expect(res.body.result.inputRequests.approve.params).toMatchObject({ mode: 'url', url: expect.stringMatching(PAGE) });
  });
});

describe('across two replicas', () => {
  it('an approval granted on A lets the call run once on B; the next on A needs a new one (a built-in tool, admins approve)', async () => {
    const admin = `Bearer ${t.adminToken()}`;
    await request(t.app)
      .put('/api/v1/tool-rules/projects')
      .set('Authorization', admin)
      .send({ rules: [{ when: 'args.action == "list"', effect: 'require_approval', message: 'lists need an admin', approvers: 'admin' }] })
      .expect(200);
    const key = await makeKey(t, ['projects:read']);
    const onB = (id: number) =>
      request(replicas.b.url)
        .post('/mcp')
        .set('Content-Type', 'application/json')
        .set('Accept', 'application/json, text/event-stream')
        .set('X-API-Key', key.raw)
        .send(JSON.stringify(call(id, 'projects', { action: 'list' })));
    const first = (await onB(1).expect(200)).body;
    expect(first.result.isError).toBe(true);
    const id = PAGE.exec(first.result.content[0].text)![1];
    // The owner may not decide an admin rule's approval; an admin lists and approves it.
    await decide(key, id, 'approve').expect(404);
    const listed = await request(t.app).get(`/api/v1/approvals?user_id=${key.user}`).set('Authorization', admin).expect(200);
    expect(listed.body.map((a: { id: string }) => a.id)).toEqual([id]);
    await request(t.app).post(`/api/v1/approvals/${id}/approve`).set('Authorization', admin).expect(200);
    const ran = (await onB(2).expect(200)).body;
    expect(ran.result.isError).toBeUndefined();
    const next = (await rpc(t, key, call(3, 'projects', { action: 'list' })).expect(200)).body;
    expect(PAGE.exec(next.result.content[0].text)![1]).not.toBe(id);
    await request(t.app).delete('/api/v1/tool-rules/projects').set('Authorization', admin).expect(204);
  });
});
