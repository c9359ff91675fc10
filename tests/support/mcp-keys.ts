import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { TestApp } from './test-app';

export interface TestKey {
  id: string;
  raw: string;
  user: string;
}

/** A key made through the REST API, as a user would make it. */
export async function makeKey(t: TestApp, scopes: string[] = [], user: string = randomUUID()): Promise<TestKey> {
  const res = await request(t.app)
    .post('/api/v1/api-keys')
    .set('Authorization', `Bearer ${t.userToken(user)}`)
    .send({ name: `mcp ${scopes.join(' ') || 'full'}`, scopes })
    .expect(201);
  return { id: res.body.id, raw: res.body.raw_key, user };
}

/** One JSON-RPC POST to /mcp with a key, bypassing any client library. */
export function rpc(t: TestApp, key: TestKey | null, body: unknown, headers: Record<string, string> = {}) {
  const req = request(t.app).post('/mcp').set('Content-Type', 'application/json').set('Accept', 'application/json, text/event-stream');
  if (key) req.set('Authorization', `Bearer ${key.raw}`);
  req.set(headers);
  return req.send(typeof body === 'string' ? body : JSON.stringify(body));
}

export const call = (id: number, name: string, args?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, ...(args && { arguments: args }) },
});

/** How many resource records a user holds, to show that a refused call wrote nothing. */
export async function recordCount(t: TestApp, user: string): Promise<number> {
  const [{ count }] = await t.db.dataSource.query('SELECT count(*)::int AS count FROM resource_records WHERE user_id = $1', [user]);
  return count;
}
