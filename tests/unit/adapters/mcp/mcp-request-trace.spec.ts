import { Request, Response } from 'express';
import { mcpRequestTraceOf } from '../../../../src/adapters/mcp/mcp-request-trace';

const requestOf = (body: unknown, headers: Record<string, string> = {}) => ({ body, headers }) as unknown as Request;

describe('mcpRequestTraceOf', () => {
  it('describes a lone tools/call by method, id, tool, version and session, never its arguments', () => {
    const meta = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    const trace = mcpRequestTraceOf(
      requestOf(
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_weather', arguments: { city: 'secret' }, _meta: meta } },
        { 'mcp-protocol-version': '2025-06-18', 'mcp-session-id': 'session-1' },
      ),
    );
    expect(trace).toEqual({
      method: 'tools/call',
      id: 7,
      target: 'get_weather',
      protocolVersion: '2025-06-18',
      sessionId: 'session-1',
      meta,
    });
  });

  it('leaves batches and bodies without a method to the HTTP span alone', () => {
    expect(mcpRequestTraceOf(requestOf([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]))).toBeUndefined();
    expect(mcpRequestTraceOf(requestOf({ jsonrpc: '2.0', id: 1, result: {} }))).toBeUndefined();
    expect(mcpRequestTraceOf(requestOf(undefined))).toBeUndefined();
  });

  it('masks a key or JWT used as a tool name and bounds its length', () => {
    const key = `svc_${'a'.repeat(64)}`;
    const trace = mcpRequestTraceOf(requestOf({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: key } }));
    expect(trace?.target).toBe('svc_[redacted]');
    const long = mcpRequestTraceOf(requestOf({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x'.repeat(1000) } }));
    expect(long?.target).toHaveLength(128);
  });

  it('names no target for a method that has none', () => {
    expect(mcpRequestTraceOf(requestOf({ jsonrpc: '2.0', id: 'a', method: 'tools/list', params: { name: 'x' } }))).toEqual({
      method: 'tools/list',
      id: 'a',
      meta: undefined,
    });
  });

  it('reads a refusal status as the failure once the request was served', () => {
    const res = { statusCode: 200, locals: {} } as Response;
    const trace = mcpRequestTraceOf(requestOf({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }), res);
    expect(trace?.failure?.()).toBeUndefined();
    res.statusCode = 403;
    expect(trace?.failure?.()).toBe('403');
  });

  it("names the caller's user once the key check put its principal on the response", () => {
    const res = { statusCode: 200, locals: { principal: { userId: 'user-1' } } } as unknown as Response;
    expect(mcpRequestTraceOf(requestOf({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), res)?.userId).toBe('user-1');
  });
});
