import { Response } from 'express';
import {
  completeResult,
  modernError,
  modernErrorBody,
  modernResultBody,
  sendModernError,
} from '../../../../../src/adapters/mcp/era/modern-answer';

describe('modernError', () => {
  it.each([
    [-32020, 400],
    [-32021, 400],
    [-32022, 400],
    [-32602, 400],
    [-32600, 400],
    [-32700, 400],
    [-32601, 404],
  ])('answers %i with HTTP %i', (code, status) => {
    expect(modernError(1, code, 'm').httpStatus).toBe(status);
  });

  it('answers a code the spec gives no status with 400, and keeps data only when given', () => {
    expect(modernError('x', -32000, 'm')).toEqual({ httpStatus: 400, id: 'x', code: -32000, message: 'm' });
    expect(modernError('x', -32022, 'm', { supported: ['2026-07-28'] }).data).toEqual({ supported: ['2026-07-28'] });
  });
});

describe('modernErrorBody', () => {
  it('echoes the id, string, number or null', () => {
    for (const id of ['req-1', 0, null]) {
      expect(JSON.parse(modernErrorBody(modernError(id, -32601, 'Method not found')))).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: -32601, message: 'Method not found' },
      });
    }
  });

  it('keeps the error within keygate bounds', () => {
    const body = modernErrorBody(modernError(1, -32602, 'x'.repeat(10_000), { list: Array.from({ length: 500 }, () => 'y'.repeat(1000)) }));
    const { error } = JSON.parse(body);
    expect(error.message.length).toBeLessThanOrEqual(200);
    expect(error.data.list.length).toBeLessThanOrEqual(20);
    expect(Buffer.byteLength(body)).toBeLessThan(16 * 1024);
  });
});

describe('sendModernError', () => {
  it('writes the status and the JSON body', () => {
    const sent: { status?: number; type?: string; body?: string } = {};
    const res = {
      status(s: number) {
        sent.status = s;
        return this;
      },
      type(t: string) {
        sent.type = t;
        return this;
      },
      send(b: string) {
        sent.body = b;
        return this;
      },
    } as unknown as Response;
    sendModernError(res, modernError(5, -32601, 'Method not found'));
    expect(sent).toEqual({
      status: 404,
      type: 'application/json',
      body: '{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}',
    });
  });
});

describe('completeResult', () => {
  it('stamps resultType alone on results that are not cached', () => {
    expect(completeResult('tools/call', { content: [] })).toEqual({ content: [], resultType: 'complete' });
    expect(completeResult('prompts/get', { messages: [] })).toEqual({ messages: [], resultType: 'complete' });
  });

  it.each(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read'])(
    'adds ttlMs and a private cacheScope to %s',
    (method) => {
      expect(completeResult(method, { items: [] }, { ttlMs: 30_000 })).toEqual({
        items: [],
        resultType: 'complete',
        ttlMs: 30_000,
        cacheScope: 'private',
      });
      expect(completeResult(method, {})).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    },
  );

  it('makes an upstream public scope private and keeps its ttlMs only when shorter', () => {
    const upstream = { tools: [], resultType: 'complete', ttlMs: 5_000, cacheScope: 'public' };
    expect(completeResult('tools/list', upstream, { ttlMs: 60_000 })).toEqual({
      tools: [],
      resultType: 'complete',
      ttlMs: 5_000,
      cacheScope: 'private',
    });
    expect(completeResult('tools/list', upstream, { ttlMs: 1_000 }).ttlMs).toBe(1_000);
    for (const ttlMs of [-1, 1.5, '60000', Number.MAX_VALUE])
      expect(completeResult('tools/list', { tools: [], ttlMs }, { ttlMs: 9 }).ttlMs).toBe(9);
  });

  it('stamps serverInfo in _meta, beside other keys, and keeps one already there', () => {
    const serverInfo = { name: 'keygate', version: '1.0.0' };
    expect(completeResult('tools/call', { content: [] }, { serverInfo })._meta).toEqual({
      'io.modelcontextprotocol/serverInfo': serverInfo,
    });
    expect(completeResult('tools/call', { content: [], _meta: { a: 1 } }, { serverInfo })._meta).toEqual({
      a: 1,
      'io.modelcontextprotocol/serverInfo': serverInfo,
    });
    const theirs = { 'io.modelcontextprotocol/serverInfo': { name: 'up', version: '2' } };
    expect(completeResult('tools/call', { content: [], _meta: theirs }, { serverInfo })._meta).toEqual(theirs);
  });

  it('refuses a result that is not complete: that is a bug in the caller', () => {
    expect(() => completeResult('tools/call', { resultType: 'input_required', inputRequests: {} })).toThrow(/input_required/);
  });

  it('does not change the result it is given', () => {
    const result = { tools: [] };
    completeResult('tools/list', result, { serverInfo: { name: 'k', version: '1' } });
    expect(result).toEqual({ tools: [] });
  });
});

describe('modernResultBody', () => {
  it('writes the message with the keys in the SDK order', () => {
    expect(modernResultBody(3, 'tools/list', { tools: [] })).toBe(
      '{"result":{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"private"},"jsonrpc":"2.0","id":3}',
    );
  });
});
