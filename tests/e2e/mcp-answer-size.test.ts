import { call, makeKey, rpc, recordCount, TestKey } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The hardening issue's "no response over 64 KiB" on /mcp: stored data is
 * bounded, listings stop at a byte budget, batches hold at most 10 messages
 * and share one answer, and nothing of a caller's input is echoed unbounded.
 */
const MAX_RESPONSE_BYTES = 64 * 1024;

let t: TestApp;
let key: TestKey;
beforeAll(async () => {
  t = await startTestApp();
  key = await makeKey(t);
});
afterAll(() => t.close());

const bytes = (res: { text: string }) => Buffer.byteLength(res.text);
const result = (res: { body: { result: Record<string, any> } }) => res.body.result;
/** Data whose JSON takes `size` bytes, as PostgreSQL is sent it. */
const dataOf = (size: number, fields: Record<string, unknown> = {}) => {
  const base = { ...fields, text: '' };
  return { ...base, text: 'x'.repeat(size - Buffer.byteLength(JSON.stringify(base))) };
};

describe('tools/call data over 8 KiB', () => {
  it('is a tool error naming data and the limit, and nothing is written', async () => {
    const own = await makeKey(t);
    for (const data of [dataOf(8193), { items: Array.from({ length: 125_905 }, () => 1) }]) {
      const res = await rpc(t, own, call(1, 'projects', { action: 'create', data })).expect(200);
      expect(result(res)).toEqual({
        isError: true,
        content: [{ type: 'text', text: expect.stringMatching(/^data: must be at most 8192 bytes as JSON \(MAX_RECORD_DATA_BYTES\)/) }],
      });
      expect(bytes(res)).toBeLessThan(1024);
    }
    expect(await recordCount(t, own.user)).toBe(0);
    const { record } = result(
      await rpc(t, own, call(2, 'projects', { action: 'create', data: dataOf(8192) })).expect(200),
    ).structuredContent;
    const update = await rpc(t, own, call(3, 'projects', { action: 'update', id: record.id, data: { more: 'y' } })).expect(200);
    expect(result(update)).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^data: must be at most 8192 bytes/) }],
    });
    const execute = await rpc(t, own, call(4, 'projects', { action: 'execute', id: record.id, data: dataOf(8192) })).expect(200);
    expect(result(execute)).toMatchObject({ isError: true });
    const [row] = await t.db.dataSource.query('SELECT data FROM resource_records WHERE user_id = $1', [own.user]);
    expect(row.data).toEqual(dataOf(8192));
    expect(await recordCount(t, own.user)).toBe(1);
  });
});

describe('tools/call listings', () => {
  let ids: string[];
  let lister: TestKey;
  beforeAll(async () => {
    lister = await makeKey(t);
    ids = [];
    // 20 records of 8 KiB: 160 KiB of data, once listed whole and twice over.
    for (let i = 0; i < 20; i++) {
      const res = await rpc(t, lister, call(i, 'routines', { action: 'create', data: dataOf(8192, { i }) })).expect(200);
      ids.push(result(res).structuredContent.record.id);
    }
  });

  it('stop before 64 KiB, oldest first, saying truncated', async () => {
    for (const args of [{ action: 'list' }, { action: 'search', data: { text: 'xxxx' } }, { action: 'query', data: { where: {} } }]) {
      const res = await rpc(t, lister, call(1, 'routines', args)).expect(200);
      expect(bytes(res)).toBeLessThan(MAX_RESPONSE_BYTES);
      const listed = result(res).structuredContent;
      expect(listed.truncated).toBe(true);
      expect(listed.records.length).toBeGreaterThan(0);
      expect(listed.records.map((r: { id: string }) => r.id)).toEqual(ids.slice(0, listed.records.length));
      expect(JSON.parse(result(res).content[0].text)).toEqual(listed);
    }
  });

  it('leave truncated out when all that matched is shown', async () => {
    const res = await rpc(t, lister, call(1, 'routines', { action: 'query', data: { where: { i: 3 } } })).expect(200);
    expect(result(res).structuredContent).toEqual({ records: [expect.objectContaining({ id: ids[3] })] });
  });

  it('share the 64 KiB in a batch of 10', async () => {
    const batch = Array.from({ length: 10 }, (_, i) =>
      call(i, 'routines', { action: i % 2 === 0 ? 'list' : 'get', ...(i % 2 === 1 && { id: ids[i] }) }),
    );
    const res = await rpc(t, lister, batch).expect(200);
    expect(bytes(res)).toBeLessThan(MAX_RESPONSE_BYTES);
    expect(res.body).toHaveLength(10);
    const [list, get] = res.body.map((m: { result: { structuredContent: unknown } }) => m.result.structuredContent);
    expect(list).toEqual({ records: [], truncated: true });
    // A record too large for its share is shown without its data.
    expect(get).toEqual({ record: expect.not.objectContaining({ data: expect.anything() }), truncated: true });
    expect(get.record.id).toBe(ids[1]);
  });

  it('show whole records in a batch of two', async () => {
    const res = await rpc(t, lister, [call(1, 'routines', { action: 'get', id: ids[0] }), call(2, 'routines', { action: 'list' })]).expect(
      200,
    );
    expect(bytes(res)).toBeLessThan(MAX_RESPONSE_BYTES);
    expect(res.body[0].result.structuredContent.record.data).toEqual(dataOf(8192, { i: 0 }));
    expect(res.body[1].result.structuredContent.records).toHaveLength(1);
  });
});

describe('JSON-RPC batches', () => {
  const toolsList = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

  it('of 11 messages are refused with 400 and one -32600 naming the limit, before anything runs', async () => {
    const own = await makeKey(t);
    const res = await rpc(
      t,
      own,
      Array.from({ length: 11 }, (_, i) => call(i, 'projects', { action: 'create', data: { i } })),
    ).expect(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/at most 10 messages/) } });
    expect(await recordCount(t, own.user)).toBe(0);
    const lists = await rpc(
      t,
      own,
      Array.from({ length: 100 }, (_, i) => toolsList(i)),
    ).expect(400);
    expect(bytes(lists)).toBeLessThan(512);
  });

  it('of 10 full-access tools/list are answered, under 64 KiB', async () => {
    const res = await rpc(
      t,
      key,
      Array.from({ length: 10 }, (_, i) => toolsList(i)),
    ).expect(200);
    expect(res.body).toHaveLength(10);
    expect(bytes(res)).toBeLessThan(MAX_RESPONSE_BYTES);
  });
});

describe('input echoed into an answer', () => {
  it('initialize answers without echoing the client capabilities or clientInfo', async () => {
    const res = await rpc(t, key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-03-26',
        capabilities: { experimental: { big: { x: 'c'.repeat(15_000) } } },
        clientInfo: { name: 'n'.repeat(15_000), version: 'v'.repeat(1_000) },
      },
    }).expect(200);
    expect(res.body.result).toMatchObject({ protocolVersion: '2025-03-26', serverInfo: { name: 'keygate' } });
    expect(bytes(res)).toBeLessThan(1024);
  });

  it('refuses capabilities or clientInfo past what a session stores, with a small answer that echoes neither', async () => {
    const res = await rpc(t, key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-03-26',
        capabilities: { experimental: { big: { x: 'c'.repeat(400_000) } } },
        clientInfo: { name: 'n'.repeat(400_000), version: 'v'.repeat(100_000) },
      },
    }).expect(400);
    expect(res.body.error.code).toBe(-32602);
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(bytes(res)).toBeLessThan(1024);
  });
});
