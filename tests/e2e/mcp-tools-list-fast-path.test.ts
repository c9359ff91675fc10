import request from 'supertest';
import { makeKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** The SSE answer comes from the SDK server; the JSON answer to a lone tools/list does not. */
function sseResult(text: string): unknown {
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  return JSON.parse(data!.slice('data: '.length));
}

describe('tools/list answered without the SDK', () => {
  it.each([
    [[], {}],
    [['projects:read', 'agents:write'], {}],
    [[], { agent_scopes: ['chat:write'] }],
    [['agents:write'], { agent_scopes: ['agents:read', 'models:read'] }],
  ])('gives the same answer as the SDK server for scopes %j and params %j', async (scopes, params) => {
    const key = await makeKey(t, scopes);
    const body = { jsonrpc: '2.0', id: 7, method: 'tools/list', params };
    const post = (accept: string) => request(t.app).post('/mcp').set('X-API-Key', key.raw).set('Accept', accept).send(body).expect(200);
    const fast = (await post('application/json')).body;
    const sdk = sseResult((await post('text/event-stream')).text);
    expect(fast).toEqual(sdk);
  });

  it("answers each request of a key with that request's id, and a key of other scopes with its own list", async () => {
    const narrow = await makeKey(t, ['projects:read']);
    const wide = await makeKey(t, []);
    const asks: [typeof narrow, string | number, number][] = [
      [narrow, 1, 1],
      [narrow, 'second', 1],
      [wide, 2, 6],
      [narrow, 3, 1],
    ];
    for (const [key, id, count] of asks) {
      const res = await request(t.app)
        .post('/mcp')
        .set('X-API-Key', key.raw)
        .set('Accept', 'application/json')
        .send({ jsonrpc: '2.0', id, method: 'tools/list' })
        .expect(200)
        .expect('Content-Type', 'application/json; charset=utf-8');
      expect(res.body.id).toBe(id);
      expect(res.body.result.tools).toHaveLength(count);
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    }
  });

  it('leaves errors to the SDK: an invalid agent_scopes is -32602 either way', async () => {
    const key = await makeKey(t);
    const res = await request(t.app)
      .post('/mcp')
      .set('X-API-Key', key.raw)
      .set('Accept', 'application/json')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { agent_scopes: ['nope'] } });
    expect(res.body.error.code).toBe(-32602);
  });
});
