import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { CreateAgentRole } from '../../src/application/use-cases/agent-roles/create-agent-role.use-case';
import { chainHash, GENESIS_HASH } from '../../src/adapters/audit/audit-chain';
import { AuditEventRow, AUDIT_COLUMNS, toAuditEvent } from '../../src/adapters/persistence/audit/audit-event.row';
import { call, makeKey, rpc } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const as = (token: string) => ({
  post: (path: string, body: object) => request(t.app).post(path).set('Authorization', `Bearer ${token}`).send(body),
  patch: (path: string, body: object) => request(t.app).patch(path).set('Authorization', `Bearer ${token}`).send(body),
  delete: (path: string) => request(t.app).delete(path).set('Authorization', `Bearer ${token}`),
});
const rows = async (where = 'TRUE', params: unknown[] = []) =>
  (await t.db.dataSource.query<AuditEventRow[]>(`SELECT ${AUDIT_COLUMNS} FROM audit_events WHERE ${where} ORDER BY seq`, params)).map(
    toAuditEvent,
  );
const structured = (res: request.Response) => res.body.result.structuredContent as { record: { id: string } };

describe('lifecycle audit events', () => {
  it('records every change to roles, mode configurations and sessions, with who asked, from where, in one unbroken chain', async () => {
    const adminId = randomUUID();
    const admin = as(t.adminToken(adminId));
    const userId = randomUUID();
    const user = as(t.userToken(userId));
    const role = (
      await admin
        .post('/api/v1/agent-roles', { name: 'auditor', platform_scopes: ['projects:read'] })
        .set('X-Request-Id', 'req-role-1')
        .expect(201)
    ).body;
    await admin.patch(`/api/v1/agent-roles/${role.id}`, { platform_scopes: ['projects:write'] }).expect(200);
    const mode = (await admin.post('/api/v1/mode-tool-configs', { mode: 'audit-mode', additional_scopes: ['chat:write'] }).expect(201))
      .body;
    await admin.patch(`/api/v1/mode-tool-configs/${mode.id}`, { additional_scopes: ['chat:read'] }).expect(200);
    const session = (await user.post('/api/v1/mode-sessions', { agent_role_id: role.id, mode: 'audit-mode' }).expect(201)).body;
    await user.delete(`/api/v1/mode-sessions/${session.id}`).expect(204);
    await admin.delete(`/api/v1/mode-tool-configs/${mode.id}`).expect(204);
    await admin.delete(`/api/v1/agent-roles/${role.id}`).expect(204);

    const events = await rows(`target_id = ANY($1)`, [[role.id, mode.id, session.id]]);
    expect(events.map((e) => e.action)).toEqual([
      'agent_role.created',
      'agent_role.updated',
      'mode_tool_config.created',
      'mode_tool_config.updated',
      'mode_session.started',
      'mode_session.ended',
      'mode_tool_config.deleted',
      'agent_role.deleted',
    ]);
    expect(events[0]).toMatchObject({
      actor: { type: 'user', id: adminId },
      userId: adminId,
      keyId: null,
      target: { type: 'agent_role', id: role.id },
      requestId: 'req-role-1',
      ip: expect.stringMatching(/127\.0\.0\.1/),
      details: { name: 'auditor', platform_scopes: ['projects:read'] },
    });
    expect(events[1].details).toEqual({ name: 'auditor', platform_scopes: ['projects:write'], changed: ['platform_scopes'] });
    expect(events[4]).toMatchObject({
      actor: { type: 'user', id: userId },
      userId,
      target: { type: 'mode_session', id: session.id },
      details: { agent_role_id: role.id, mode_tool_config_id: mode.id, mode: 'audit-mode' },
    });

    const all = await rows();
    let previous = GENESIS_HASH;
    all.forEach((event, i) => {
      expect(event.seq).toBe(i + 1);
      expect(event.hash).toBe(chainHash(previous, event));
      previous = event.hash;
    });
  });

  it('records mcp_server.created, .updated and .deleted for the key that made the call, without header values', async () => {
    const key = await makeKey(t, ['mcp_servers:write']);
    const created = await rpc(
      t,
      key,
      call(1, 'mcp_servers', {
        action: 'create',
        data: { name: 'audited', url: 'https://upstream.example.com/mcp?token=t0ps3cret', headers: { Authorization: 'Bearer h34der' } },
      }),
    ).expect(200);
    const id = structured(created).record.id;
    await rpc(t, key, call(2, 'mcp_servers', { action: 'update', id, data: { description: 'x' } })).expect(200);
    await rpc(t, key, call(3, 'mcp_servers', { action: 'delete', id })).expect(200);
    const events = await rows('target_id = $1', [id]);
    expect(events.map((e) => e.action)).toEqual(['mcp_server.created', 'mcp_server.updated', 'mcp_server.deleted']);
    expect(events[0]).toMatchObject({
      actor: { type: 'key', id: key.id },
      userId: key.user,
      keyId: key.id,
      target: { type: 'mcp_server', id },
      details: { name: 'audited', url_origin: 'https://upstream.example.com' },
    });
    expect(events[1].details).toMatchObject({ changed: ['description'] });
    expect(JSON.stringify(events)).not.toMatch(/t0ps3cret|h34der/);
  });

  it('writes no event for a change that was refused', async () => {
    const admin = as(t.adminToken());
    await admin.post('/api/v1/agent-roles', { name: 'twice', platform_scopes: [] }).expect(201);
    // Tool-call events of the tests before may still land from the batch writer: only lifecycle events count here.
    const lifecycle = async () => (await rows(`action NOT LIKE 'tool.%'`)).length;
    const before = await lifecycle();
    await admin.post('/api/v1/agent-roles', { name: 'twice', platform_scopes: [] }).expect(409);
    await admin.patch(`/api/v1/agent-roles/${randomUUID()}`, { name: 'gone' }).expect(404);
    await as(t.userToken()).delete(`/api/v1/mode-sessions/${randomUUID()}`).expect(404);
    expect(await lifecycle()).toBe(before);
  });

  it('commits a change only with its event: when the event cannot be written, the role is not created either', async () => {
    await t.db.dataSource.query(`
      CREATE FUNCTION refuse_role_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.action = 'agent_role.created' THEN RAISE EXCEPTION 'no'; END IF; RETURN NEW; END $$`);
    await t.db.dataSource.query(
      'CREATE TRIGGER refuse_role_events BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION refuse_role_events()',
    );
    try {
      const create = t.container.get(CreateAgentRole);
      await expect(
        create.execute({ actor: { userId: randomUUID(), isAdmin: true }, name: 'unrecorded', platformScopes: [] }),
      ).rejects.toThrow();
      const [{ n }] = await t.db.dataSource.query(`SELECT count(*)::int AS n FROM agent_roles WHERE name = 'unrecorded'`);
      expect(n).toBe(0);
    } finally {
      await t.db.dataSource.query('DROP TRIGGER refuse_role_events ON audit_events');
    }
  });
});
