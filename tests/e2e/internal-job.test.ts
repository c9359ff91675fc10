import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { agentToolSet } from '../../examples/worker-tool-set';
import { startTestApp, TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('an internal job building an agent tool set in-process', () => {
  it('gets the same answer as POST /api/v1/tool-sets, without HTTP', async () => {
    const admin = `Bearer ${t.adminToken()}`;
    const role = await request(t.app)
      .post('/api/v1/agent-roles')
      .set('Authorization', admin)
      .send({ name: 'triage', platform_scopes: ['chat:read', 'agents:read'] })
      .expect(201);
    await request(t.app)
      .post('/api/v1/mode-tool-configs')
      .set('Authorization', admin)
      .send({ mode: 'incident', additional_scopes: ['routines:write'] })
      .expect(201);
    const user = `Bearer ${t.userToken()}`;
    const session = await request(t.app)
      .post('/api/v1/mode-sessions')
      .set('Authorization', user)
      .send({ agent_role_id: role.body.id, mode: 'incident' })
      .expect(201);

    for (const sessionId of [undefined, session.body.id]) {
      const viaHttp = await request(t.app)
        .post('/api/v1/tool-sets')
        .set('Authorization', user)
        .send({ agent_role_id: role.body.id, mode_session_id: sessionId })
        .expect(200);
      const inProcess = await agentToolSet(t.db.url, role.body.id, sessionId);
      expect(inProcess.scopes).toEqual(viaHttp.body.effective_scopes);
      expect(inProcess.tools).toEqual(viaHttp.body.tools.map((tool: { name: string }) => tool.name));
    }
    expect((await agentToolSet(t.db.url, role.body.id, session.body.id)).tools.sort()).toEqual(['agents', 'chat', 'routines']);
  });

  it('is the snippet docs/scopes.md shows', () => {
    const root = path.resolve(__dirname, '..', '..');
    const example = readFileSync(path.join(root, 'examples', 'worker-tool-set.ts'), 'utf8').trim();
    expect(readFileSync(path.join(root, 'docs', 'scopes.md'), 'utf8')).toContain(example);
  });
});
