import { randomUUID } from 'node:crypto';
import { Client, McpSubscription, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import request from 'supertest';
import { startTwoReplicas, TwoReplicas } from '../support/app-replicas';
import { eventually } from '../support/replica';

jest.setTimeout(60_000);

/**
 * A subscriptions/listen stream held by one replica hears keygate's own
 * changes made through another: the key's row and the owner's servers are
 * heard by every replica on the change listener.
 */
let r: TwoReplicas;
const closers: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  r = await startTwoReplicas();
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c.close().catch(() => undefined)));
  await r?.close();
});

it("tells tools/list_changed on replica b when the key's scopes are edited through replica a, and ends the stream when the key is revoked there", async () => {
  const user = randomUUID();
  const auth = `Bearer ${r.a.userToken(user)}`;
  const made = await request(r.a.app)
    .post('/api/v1/api-keys')
    .set('Authorization', auth)
    .send({ name: 'listen', scopes: ['projects:read'] })
    .expect(201);
  const client = new Client({ name: 'listen-replicas', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const heard: string[] = [];
  client.setNotificationHandler('notifications/tools/list_changed', () => void heard.push('tools'));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${r.b.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${made.body.raw_key}` } },
    }),
  );
  closers.push(client);
  const subscription: McpSubscription = await client.listen({ toolsListChanged: true });
  closers.push(subscription);
  await request(r.a.app)
    .patch(`/api/v1/api-keys/${made.body.id}`)
    .set('Authorization', auth)
    .send({ scopes: ['projects:read', 'chat:read'] })
    .expect(200);
  await eventually(() => heard.length >= 1, 5000);
  expect(heard).toEqual(['tools']);
  await request(r.a.app)
    .delete(`/api/v1/api-keys/${made.body.id}`)
    .set('Authorization', auth)
    .expect((res) => expect(res.status).toBeLessThan(300));
  expect(await subscription.closed).toBe('graceful');
});
