import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AUDIT_COLUMNS, AuditEventRow } from '../../src/adapters/persistence/audit/audit-event.row';
import { call, makeKey, rpc, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

jest.setTimeout(60_000);

const V = '2026-07-28';
const MARKER = 'rm -rf /keep-out-7c1e';
let t: TestApp;
let upstream: UpstreamMcpServer;
let owner: TestKey;

/** files: rules on the arguments; docs: rules that read no arguments, which forward auth can decide. */
const FILES_RULES = {
  echo: [{ when: 'has(args.text) && args.text.startsWith("rm ")', effect: 'deny', message: 'No rm through echo' }],
  secret: [
    { when: 'args.n > 3', effect: 'deny', message: 'n must be at most 3' },
    { when: 'args.n == 0', effect: 'require_approval', message: 'n of 0 needs a yes', approvers: 'admin' },
  ],
};
const DOCS_RULES = {
  echo: [{ when: 'key.name == "blocked" && server == "docs" && tool == "echo"', effect: 'deny', message: 'Blocked keys may not echo' }],
};

beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '2000', TRUST_PROXY: 'loopback' });
  upstream = await startUpstream();
  owner = await makeKey(t);
  for (const [name, tool_rules] of [
    ['files', FILES_RULES],
    ['docs', DOCS_RULES],
  ] as const) {
    const res = await rpc(t, owner, call(1, 'mcp_servers', { action: 'create', data: { name, url: upstream.url, tool_rules } })).expect(
      200,
    );
    expect(res.body.result.isError).toBeUndefined();
  }
});
afterAll(async () => {
  await upstream?.stop();
  await t?.close();
});

function modern(key: TestKey, id: string, name: string, args: Record<string, unknown>) {
  const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
  return request(t.app)
    .post('/mcp')
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream')
    .set('Authorization', `Bearer ${key.raw}`)
    .set('MCP-Protocol-Version', V)
    .set('Mcp-Method', 'tools/call')
    .set('Mcp-Name', name)
    .send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: meta } }));
}

async function toolEvents(user: string): Promise<AuditEventRow[]> {
  return t.db.dataSource.query(`SELECT ${AUDIT_COLUMNS} FROM audit_events WHERE user_id = $1 AND action LIKE 'tool.%' ORDER BY seq`, [
    user,
  ]);
}

async function namedKey(name: string, user = owner.user): Promise<TestKey> {
  const res = await request(t.app)
    .post('/api/v1/api-keys')
    .set('Authorization', `Bearer ${t.userToken(user)}`)
    .send({ name, scopes: [] })
    .expect(201);
  return { id: res.body.id, raw: res.body.raw_key, user };
}

describe('tool rules on a server record', () => {
  it('refuses a call whose arguments a deny rule matches with 403 and the rule message, on 2025 and 2026 alike', async () => {
    const legacy = await rpc(t, owner, call(7, 'files__echo', { text: MARKER })).expect(403);
    expect(legacy.body).toMatchObject({
      id: 7,
      error: { code: -32003, message: 'Refused by rule 0 of echo: No rm through echo', data: { rule: { tool: 'echo', index: 0 } } },
    });
    // No scope would help: no insufficient_scope challenge.
    expect(legacy.headers['www-authenticate']).toBeUndefined();
    const current = await modern(owner, 'm1', 'files__echo', { text: MARKER }).expect(403);
    expect(current.body).toMatchObject({ id: 'm1', error: { code: -32003, message: legacy.body.error.message } });
  });

  it('lets a call through that no rule matches', async () => {
    const res = await rpc(t, owner, call(8, 'files__echo', { text: 'hello' })).expect(200);
    expect(res.body.result.structuredContent).toEqual({ text: 'hello' });
    const n = await rpc(t, owner, call(9, 'files__secret', { n: 2 })).expect(200);
    expect(n.body.result.isError).toBeUndefined();
    expect((await modern(owner, 'm2', 'files__secret', { n: 3 }).expect(200)).body.result.isError).toBeUndefined();
  });

  it('compares a JSON number with an int literal: n of 5 is more than 3', async () => {
    const res = await rpc(t, owner, call(10, 'files__secret', { n: 5 })).expect(403);
    expect(res.body.error.message).toBe('Refused by rule 0 of secret: n must be at most 3');
  });

  it('refuses a call a rule cannot evaluate (fail closed), naming the rule and not the arguments', async () => {
    const res = await rpc(t, owner, call(11, 'files__secret', { m: MARKER })).expect(403);
    expect(res.body.error.message).toMatch(/^Refused: rule 0 of secret could not be evaluated for this call/);
    expect(JSON.stringify(res.body)).not.toContain(MARKER);
    const typed = await rpc(t, owner, call(12, 'files__secret', { n: MARKER })).expect(403);
    expect(JSON.stringify(typed.body)).not.toContain(MARKER);
  });

  it('holds a require_approval match for an approval: a tool error naming the approval page (approvals.test.ts has the rest)', async () => {
    const res = await rpc(t, owner, call(13, 'files__secret', { n: 0 })).expect(200);
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toMatch(
      /^This call needs approval \(rule 1 of secret: n of 0 needs a yes\): ask for it at \/console\/#\/approvals\/[0-9a-f-]{36}, then make the same call again$/,
    );
  });

  it('records tool.denied naming the rule, with none of the arguments', async () => {
    const key = await makeKey(t, [], owner.user);
    await rpc(t, key, call(14, 'files__echo', { text: MARKER })).expect(403);
    await rpc(t, key, call(15, 'files__secret', { m: MARKER })).expect(403);
    const rows = (await toolEvents(owner.user)).filter((row) => row.key_id === key.id);
    expect(rows.map((row) => [row.action, row.details.rule])).toEqual([
      ['tool.denied', { source: 'server', server_id: expect.any(String), index: 0, effect: 'deny', outcome: 'matched' }],
      ['tool.denied', { source: 'server', server_id: expect.any(String), index: 0, effect: 'deny', outcome: 'error' }],
    ]);
    expect(rows[0].details).toMatchObject({ tool: 'files__echo', outcome: 'denied' });
    expect(JSON.stringify(rows)).not.toContain(MARKER);
    expect(JSON.stringify(rows)).not.toContain('No rm through echo');
  });

  it('reads key.name, server and tool: a rule on the key refuses only that key', async () => {
    const blocked = await namedKey('blocked');
    expect((await rpc(t, blocked, call(16, 'docs__echo', { text: 'hi' })).expect(403)).body.error.message).toBe(
      'Refused by rule 0 of echo: Blocked keys may not echo',
    );
    await rpc(t, owner, call(17, 'docs__echo', { text: 'hi' })).expect(200);
  });
});

describe('tool rules on /authz (forward auth)', () => {
  const authz = (key: TestKey, server: string, name: string) =>
    request(t.app)
      .get(`/authz?server=${server}`)
      .set('Authorization', `Bearer ${key.raw}`)
      .set({ 'MCP-Protocol-Version': V, 'Mcp-Method': 'tools/call', 'Mcp-Name': name });

  it('decides rules that read no arguments as /mcp does', async () => {
    const blocked = await namedKey('blocked');
    const res = await authz(blocked, 'docs', 'echo').expect(403);
    expect(res.text ?? '').toBe('');
    await authz(owner, 'docs', 'echo').expect(200);
  });

  it('refuses a tool whose rules read the arguments, which forward auth does not see', async () => {
    await authz(owner, 'files', 'echo').expect(403);
    // A tool without rules passes as before.
    await authz(owner, 'docs', 'secret').expect(200);
  });
});

describe('writing tool rules', () => {
  const rest = (user: string) => ({
    post: (body: object) =>
      request(t.app)
        .post('/api/v1/mcp-servers')
        .set('Authorization', `Bearer ${t.userToken(user)}`)
        .send(body),
  });

  it('answers 400 naming the field and the position on REST, writing nothing', async () => {
    const user = randomUUID();
    const bad = (tool_rules: unknown) => rest(user).post({ name: 'ruled', url: upstream.url, tool_rules }).expect(400);
    const parse = await bad({ echo: [{ when: 'args.text ==', effect: 'deny', message: 'm' }] });
    expect(parse.body.errors).toEqual([
      { field: 'tool_rules.echo[0].when', message: expect.stringMatching(/^line 1, column 11: does not parse/) },
    ]);
    const unknown = await bad({
      echo: [
        { when: 'true', effect: 'deny', message: 'm' },
        { when: 'args.a == 1 ||\n request.x', effect: 'deny', message: 'm' },
      ],
    });
    expect(unknown.body.errors).toEqual([
      { field: 'tool_rules.echo[1].when', message: expect.stringMatching(/^line 2, column 2: uses the unknown variable request/) },
    ]);
    const long = await bad({ echo: [{ when: `"${'a'.repeat(2100)}" == ""`, effect: 'deny', message: 'm' }] });
    expect(long.body.errors[0]).toMatchObject({ field: 'tool_rules.echo[0].when', message: expect.stringContaining('more than 2048') });
    const shape = await bad({ echo: [{ when: 'true', effect: 'allow', message: '' }] });
    expect(shape.body.errors.map((e: { field: string }) => e.field)).toEqual(['tool_rules.echo[0].effect', 'tool_rules.echo[0].message']);
    const many = await bad({ echo: Array.from({ length: 21 }, () => ({ when: 'true', effect: 'deny', message: 'm' })) });
    expect(many.body.errors[0]).toMatchObject({ field: 'tool_rules.echo', message: expect.stringContaining('more than 20') });
    await bad([]);
    const list = await request(t.app)
      .get('/api/v1/mcp-servers')
      .set('Authorization', `Bearer ${t.userToken(user)}`)
      .expect(200);
    expect(list.body).toEqual([]);
  });

  it('shows tool_rules on REST and takes them on PATCH', async () => {
    const user = randomUUID();
    const rules = { echo: [{ when: 'now.getDayOfWeek() == 5', effect: 'deny', message: 'Not on Fridays' }] };
    const created = await rest(user).post({ name: 'weekly', url: upstream.url, tool_rules: rules }).expect(201);
    expect(created.body.tool_rules).toEqual(rules);
    const patched = await request(t.app)
      .patch(`/api/v1/mcp-servers/${created.body.id}`)
      .set('Authorization', `Bearer ${t.userToken(user)}`)
      .send({ tool_rules: { echo: [{ when: 'nope', effect: 'deny', message: 'm' }] } })
      .expect(400);
    expect(patched.body.errors[0].field).toBe('tool_rules.echo[0].when');
  });

  it('refuses bad rules on the mcp_servers tool as a tool error naming the field and position', async () => {
    const key = await makeKey(t);
    const res = await rpc(
      t,
      key,
      call(1, 'mcp_servers', {
        action: 'create',
        data: { name: 'bad', url: upstream.url, tool_rules: { echo: [{ when: 'x > 1', effect: 'deny', message: 'm' }] } },
      }),
    ).expect(200);
    expect(res.body.result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/data\.tool_rules\.echo\[0\]\.when: line 1, column 1: uses the unknown variable x/) }],
    });
  });
});

describe('the built-in tools’ rules (/api/v1/tool-rules)', () => {
  const as = (token: string) => ({
    put: (tool: string, body: object) =>
      request(t.app).put(`/api/v1/tool-rules/${tool}`).set('Authorization', `Bearer ${token}`).send(body),
    get: () => request(t.app).get('/api/v1/tool-rules').set('Authorization', `Bearer ${token}`),
    delete: (tool: string) => request(t.app).delete(`/api/v1/tool-rules/${tool}`).set('Authorization', `Bearer ${token}`),
  });
  const rules = [
    { when: 'args.action == "delete" && server == "" && tool == "projects"', effect: 'deny', message: 'Projects are never deleted' },
  ];

  it('is for admins only: 403 for anyone else, writing nothing', async () => {
    const user = as(t.userToken(owner.user));
    await user.put('projects', { rules }).expect(403);
    await user.get().expect(403);
    await user.delete('projects').expect(403);
    expect((await as(t.adminToken()).get().expect(200)).body).toEqual([]);
  });

  it('answers 400 naming the rule and position, and 404 for a tool that is not built in', async () => {
    const admin = as(t.adminToken());
    const bad = await admin.put('projects', { rules: [rules[0], { when: 'args.x >', effect: 'deny', message: 'm' }] }).expect(400);
    expect(bad.body.errors).toEqual([{ field: 'rules[1].when', message: expect.stringMatching(/^line 1, column 8: does not parse/) }]);
    await admin.put('projects', { rules: {} }).expect(400);
    await admin.put('files__echo', { rules }).expect(404);
    expect((await admin.get().expect(200)).body).toEqual([]);
  });

  it('refuses a built-in call a rule matches, lets others through, and clears on DELETE', async () => {
    const adminId = randomUUID();
    const admin = as(t.adminToken(adminId));
    const put = await admin.put('projects', { rules }).expect(200);
    expect(put.body).toEqual({ tool: 'projects', rules, updated_at: expect.any(String) });
    const [changed] = await t.db.dataSource.query(
      `SELECT ${AUDIT_COLUMNS} FROM audit_events WHERE action = 'tool_rules.updated' AND user_id = $1`,
      [adminId],
    );
    expect(changed).toMatchObject({ actor_id: adminId, target_id: 'projects', details: { rule_count: 1, effects: ['deny'] } });
    expect((await admin.get().expect(200)).body).toEqual([put.body]);
    const key = await makeKey(t, ['projects:write']);
    const refused = await rpc(t, key, call(1, 'projects', { action: 'delete', id: randomUUID(), data: { note: MARKER } })).expect(403);
    expect(refused.body.error.message).toBe('Refused by rule 0 of projects: Projects are never deleted');
    await rpc(t, key, call(2, 'projects', { action: 'list' })).expect(200);
    const [event] = (await toolEvents(key.user)).filter((row) => row.action === 'tool.denied');
    expect(event.details.rule).toEqual({ source: 'built_in', index: 0, effect: 'deny', outcome: 'matched' });
    expect(JSON.stringify(event)).not.toContain(MARKER);
    await admin.delete('projects').expect(204);
    expect((await admin.get().expect(200)).body).toEqual([]);
    const after = await rpc(t, key, call(3, 'projects', { action: 'delete', id: randomUUID() })).expect(200);
    expect(after.body.result.content[0].text).not.toContain('never deleted');
  });
});
