import { createHash, randomUUID } from 'node:crypto';
import { chainHash, GENESIS_HASH } from '../../src/adapters/audit/audit-chain';
import { UNAUDITED_MESSAGE } from '../../src/adapters/mcp/tool-call-recorder';
import { AUDIT_COLUMNS, AuditEventRow, toAuditEvent } from '../../src/adapters/persistence/audit/audit-event.row';
import { call, makeKey, rpc, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

let t: TestApp;
let upstream: UpstreamMcpServer;
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '2000' });
  upstream = await startUpstream();
});
afterAll(async () => {
  await upstream.stop();
  await t.close();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const MARKER = 'do-not-keep-7f3a';

/** A user's tool events, read once: a call is answered only after its event is committed, so they are all there. */
async function toolEvents(user: string): Promise<{ rows: AuditEventRow[] }> {
  const rows: AuditEventRow[] = await t.db.dataSource.query(
    `SELECT ${AUDIT_COLUMNS} FROM audit_events WHERE user_id = $1 AND action LIKE 'tool.%' ORDER BY seq`,
    [user],
  );
  return { rows };
}

describe('tool.called and tool.denied', () => {
  let full: TestKey;
  beforeAll(async () => {
    full = await makeKey(t);
  });

  it('records a built-in call that ran, before it is answered, with its facts and none of its argument values', async () => {
    const args = { action: 'create', data: { name: MARKER, note: `${MARKER}-note` } };
    const res = await rpc(t, full, call(1, 'projects', args), { 'X-Request-Id': 'audit-e2e-1' }).expect(200);
    expect(res.body.result.isError).toBeUndefined();
    const { rows } = await toolEvents(full.user);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row).toMatchObject({
      action: 'tool.called',
      actor_type: 'key',
      actor_id: full.id,
      user_id: full.user,
      key_id: full.id,
      target_type: 'tool',
      target_id: 'projects',
      request_id: 'audit-e2e-1',
      ip: expect.stringContaining('127.0.0.1'),
    });
    expect(row.details).toEqual({
      tool: 'projects',
      action: 'create',
      subresource: null,
      record_id: null,
      outcome: 'ok',
      duration_ms: expect.any(Number),
      args_sha256: sha256(JSON.stringify({ action: 'create', data: { name: MARKER, note: `${MARKER}-note` } })),
      required_scopes: ['projects:write'],
    });
    expect(row.details.duration_ms as number).toBeGreaterThan(0);
    expect(JSON.stringify(row)).not.toContain(MARKER);
  });

  it('records a call that failed (a get of an unknown id) as outcome error, with the record id', async () => {
    const key = await makeKey(t, ['projects:read']);
    const id = randomUUID();
    const res = await rpc(t, key, call(1, 'projects', { action: 'get', id })).expect(200);
    expect(res.body.result.isError).toBe(true);
    const { rows } = await toolEvents(key.user);
    expect(rows.map((r) => [r.action, r.details.outcome, r.details.record_id, r.details.required_scopes])).toEqual([
      ['tool.called', 'error', id, ['projects:read']],
    ]);
  });

  it('withholds the result of a call whose event the database refuses: a -32000 error in its place, and the next call answered as usual', async () => {
    const key = await makeKey(t, ['projects:read']);
    const refused = randomUUID();
    await t.db.dataSource.query(`CREATE FUNCTION refuse_probe() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.details->>'record_id' = '${refused}' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$`);
    await t.db.dataSource.query('CREATE TRIGGER refuse_probe BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION refuse_probe()');
    try {
      const res = await rpc(t, key, call(1, 'projects', { action: 'get', id: refused })).expect(200);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: UNAUDITED_MESSAGE } });
      const next = await rpc(t, key, call(2, 'projects', { action: 'list' })).expect(200);
      expect(next.body.result.isError).toBeUndefined();
    } finally {
      await t.db.dataSource.query('DROP TRIGGER refuse_probe ON audit_events; DROP FUNCTION refuse_probe()');
    }
    const { rows } = await toolEvents(key.user);
    expect(rows.map((r) => [r.details.action, r.details.record_id])).toEqual([['list', null]]);
  });

  it('records a call refused for scope as tool.denied, outcome denied, with the scopes it needs', async () => {
    const reader = await makeKey(t, ['projects:read']);
    const res = await rpc(t, reader, call(1, 'projects', { action: 'delete', id: randomUUID(), data: { why: MARKER } })).expect(403);
    expect(res.body.error.data.required_scopes).toEqual(['projects:write']);
    const { rows } = await toolEvents(reader.user);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'tool.denied',
      actor_type: 'key',
      actor_id: reader.id,
      key_id: reader.id,
      target_id: 'projects',
    });
    expect(rows[0].details).toMatchObject({
      tool: 'projects',
      action: 'delete',
      outcome: 'denied',
      duration_ms: 0,
      required_scopes: ['projects:write'],
    });
    expect(JSON.stringify(rows[0])).not.toContain(MARKER);
  });

  it('records each call of a batch once, and nothing for tools/list or a call refused as invalid params', async () => {
    const key = await makeKey(t);
    await rpc(t, key, { jsonrpc: '2.0', id: 1, method: 'tools/list' }).expect(200);
    await rpc(t, key, [
      call(1, 'projects', { action: 'list' }),
      call(2, 'chat', { action: 'list' }),
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
    ]).expect(200);
    await rpc(t, key, call(4, 'projects', { action: 'list', data: { text: 'nul\u0000' } })).expect(200); // -32602
    await rpc(t, key, call(5, 'nope__tool')).expect(200); // unknown tool
    // Each answer waited for its events, so a third could not still be on its way; the calls of a batch run concurrently, in no set order.
    const { rows } = await toolEvents(key.user);
    expect(rows.map((r) => [r.target_id, r.details.outcome]).sort()).toEqual([
      ['chat', 'ok'],
      ['projects', 'ok'],
    ]);
  });

  it("records an upstream tool call as tool.called, with its server's scopes and no built-in facts", async () => {
    const owner = await makeKey(t);
    const created = await rpc(
      t,
      owner,
      call(1, 'mcp_servers', { action: 'create', data: { name: 'files', url: upstream.url, tool_scopes: { secret: ['chat:read'] } } }),
    ).expect(200);
    expect(created.body.result.isError).toBeUndefined();
    await rpc(t, owner, call(2, 'files__echo', { text: MARKER })).expect(200);
    await rpc(t, owner, call(3, 'files__secret')).expect(200);
    const { rows } = await toolEvents(owner.user);
    expect(rows.map((r) => r.target_id)).toEqual(['mcp_servers', 'files__echo', 'files__secret']);
    expect(rows[1].details).toMatchObject({
      tool: 'files__echo',
      action: null,
      subresource: null,
      record_id: null,
      outcome: 'ok',
      args_sha256: sha256(JSON.stringify({ text: MARKER })),
      required_scopes: ['mcp_servers:write'],
    });
    expect(rows[2].details).toMatchObject({ outcome: 'ok', required_scopes: ['chat:read'], args_sha256: sha256('{}') });
    expect(JSON.stringify(rows)).not.toContain(MARKER);
  });

  it('keeps the chain whole: seq strictly increasing and every hash over the one before', async () => {
    const key = await makeKey(t);
    await Promise.all(Array.from({ length: 20 }, (_, i) => rpc(t, key, call(i, 'models', { action: 'list' })).expect(200)));
    const rows: AuditEventRow[] = await t.db.dataSource.query(`SELECT ${AUDIT_COLUMNS} FROM audit_events ORDER BY seq`);
    expect(rows.filter((r) => r.user_id === key.user && r.action === 'tool.called')).toHaveLength(20);
    let previous = GENESIS_HASH;
    let seq = 0;
    for (const row of rows) {
      const { hash, ...event } = toAuditEvent(row);
      expect(event.seq).toBe(seq + 1);
      expect(hash).toBe(chainHash(previous, event));
      previous = hash;
      seq = event.seq;
    }
  });
});
