import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { startTwoReplicas, TwoReplicas } from '../support/app-replicas';
import { call, makeKey } from '../support/mcp-keys';

jest.setTimeout(60_000);

/**
 * A built-in tool's rules changed on one replica apply on the other at
 * once: each replica's copy of the rules is dropped by the table's NOTIFY
 * (as a revoked key is), not after a lifetime.
 */
let replicas: TwoReplicas;
beforeAll(async () => {
  replicas = await startTwoReplicas();
});
afterAll(() => replicas?.close());

const onB = (raw: string, id: number, args: Record<string, unknown>) =>
  request(replicas.b.url)
    .post('/mcp')
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream')
    .set('X-API-Key', raw)
    .send(JSON.stringify(call(id, 'projects', args)));

/** The status replica B answers, asked until it is `expected` or two seconds passed (a NOTIFY is asynchronous). */
async function statusOnB(raw: string, expected: number): Promise<number> {
  const deadline = Date.now() + 2000;
  for (let id = 1; ; id += 1) {
    const { status } = await onB(raw, id, { action: 'delete', id: randomUUID() });
    if (status === expected || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the built-in tools' rules across two replicas", () => {
  it('a rule written on A refuses on B at once, and its removal lets the call through again', async () => {
    const key = await makeKey(replicas.a, ['projects:write']);
    const admin = `Bearer ${replicas.a.adminToken()}`;
    // B reads the (empty) rules first, so it holds a copy the change must drop.
    expect(await statusOnB(key.raw, 200)).toBe(200);
    const started = Date.now();
    await request(replicas.a.app)
      .put('/api/v1/tool-rules/projects')
      .set('Authorization', admin)
      .send({ rules: [{ when: 'args.action == "delete"', effect: 'deny', message: 'Projects are never deleted' }] })
      .expect(200);
    expect(await statusOnB(key.raw, 403)).toBe(403);
    // Well within the copy's 60 s lifetime: the NOTIFY dropped it.
    expect(Date.now() - started).toBeLessThan(2000);
    await request(replicas.a.app).delete('/api/v1/tool-rules/projects').set('Authorization', admin).expect(204);
    expect(await statusOnB(key.raw, 200)).toBe(200);
  });
});
