import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = t.adminToken();
});
afterAll(() => t.close());

const as = (token: string) => ({
  get: (path: string) => request(t.app).get(path).set('Authorization', `Bearer ${token}`),
  post: (path: string, body: object) => request(t.app).post(path).set('Authorization', `Bearer ${token}`).send(body),
  patch: (path: string, body: object) => request(t.app).patch(path).set('Authorization', `Bearer ${token}`).send(body),
  delete: (path: string) => request(t.app).delete(path).set('Authorization', `Bearer ${token}`),
});

const toolNames = (res: request.Response) => res.body.tools.map((tool: { name: string }) => tool.name).sort();

describe('agent roles, mode tool configs, mode sessions and tool sets', () => {
  it('seeds the documented system roles', async () => {
    const res = await as(t.userToken()).get('/api/v1/agent-roles').expect(200);
    const system = res.body.filter((r: { is_system: boolean }) => r.is_system);
    expect(system.map((r: { name: string }) => r.name).sort()).toEqual(['observer', 'operator', 'planner']);
    const observer = system.find((r: { name: string }) => r.name === 'observer');
    expect(observer.platform_scopes).toEqual(expect.arrayContaining(['agents:read', 'projects:read', 'models:read']));
    expect(observer.platform_scopes.some((s: string) => s.endsWith(':write'))).toBe(false);
  });

  it('a mode grants write that the role lacks only while its session is active', async () => {
    const role = await as(admin)
      .post('/api/v1/agent-roles', { name: 'researcher', platform_scopes: ['projects:read'] })
      .expect(201);
    await as(admin)
      .post('/api/v1/mode-tool-configs', { mode: 'build', additional_scopes: ['projects:write', 'chat:write'] })
      .expect(201);
    const user = t.userToken();
    const toolSet = (body: object) => as(user).post('/api/v1/tool-sets', body).expect(200);

    const before = await toolSet({ agent_role_id: role.body.id });
    expect(before.body).toMatchObject({ effective_scopes: ['projects:read'], full_access: false });
    expect(toolNames(before)).toEqual(['projects']);

    const session = await as(user).post('/api/v1/mode-sessions', { agent_role_id: role.body.id, mode: 'build' }).expect(201);
    expect(session.body).toMatchObject({ agent_role_id: role.body.id, mode: 'build', full_access: false });
    expect(session.body.effective_scopes.sort()).toEqual(['chat:write', 'projects:read', 'projects:write']);
    const during = await toolSet({ agent_role_id: role.body.id, mode_session_id: session.body.id });
    expect(toolNames(during)).toEqual(['chat', 'projects']);
    expect((await as(user).get(`/api/v1/mode-sessions/${session.body.id}`).expect(200)).body.id).toBe(session.body.id);

    await as(user).delete(`/api/v1/mode-sessions/${session.body.id}`).expect(204);
    await as(user).get(`/api/v1/mode-sessions/${session.body.id}`).expect(404);
    await as(user).delete(`/api/v1/mode-sessions/${session.body.id}`).expect(404);
    await as(user).post('/api/v1/tool-sets', { agent_role_id: role.body.id, mode_session_id: session.body.id }).expect(404);
    expect(toolNames(await toolSet({ agent_role_id: role.body.id }))).toEqual(['projects']);
  });

  it('a role with empty platform_scopes stays full access under any mode', async () => {
    const role = await as(admin).post('/api/v1/agent-roles', { name: 'root-agent', platform_scopes: [] }).expect(201);
    await as(admin)
      .post('/api/v1/mode-tool-configs', { mode: 'review', additional_scopes: ['chat:read'] })
      .expect(201);
    const user = t.userToken();
    const session = await as(user).post('/api/v1/mode-sessions', { agent_role_id: role.body.id, mode: 'review' }).expect(201);
    expect(session.body).toMatchObject({ effective_scopes: [], full_access: true });
    const set = await as(user).post('/api/v1/tool-sets', { agent_role_id: role.body.id, mode_session_id: session.body.id }).expect(200);
    expect(toolNames(set)).toEqual(['agents', 'chat', 'mcp_servers', 'models', 'projects', 'routines']);
  });

  it('keeps sessions to their owner: others get 404, admins see them', async () => {
    const [role] = (await as(admin).get('/api/v1/agent-roles')).body;
    await as(admin)
      .post('/api/v1/mode-tool-configs', { mode: 'owner-test', additional_scopes: ['models:read'] })
      .expect(201);
    const owner = t.userToken();
    const session = await as(owner).post('/api/v1/mode-sessions', { agent_role_id: role.id, mode: 'owner-test' }).expect(201);
    await as(t.userToken()).get(`/api/v1/mode-sessions/${session.body.id}`).expect(404);
    await as(t.userToken()).delete(`/api/v1/mode-sessions/${session.body.id}`).expect(404);
    await as(admin).get(`/api/v1/mode-sessions/${session.body.id}`).expect(200);
  });

  it('answers 404 for an unknown role or mode when starting a session', async () => {
    const [role] = (await as(admin).get('/api/v1/agent-roles')).body;
    const user = as(t.userToken());
    await user.post('/api/v1/mode-sessions', { agent_role_id: '00000000-0000-4000-8000-000000000000', mode: 'build' }).expect(404);
    await user.post('/api/v1/mode-sessions', { agent_role_id: role.id, mode: 'no-such-mode' }).expect(404);
    await user.post('/api/v1/mode-sessions', { agent_role_id: 'x', mode: '' }).expect(400);
  });
});
