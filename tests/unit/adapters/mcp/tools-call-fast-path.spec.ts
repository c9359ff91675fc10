import { Request, Response } from 'express';
import { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ToolCallRecorder, UNAUDITED_MESSAGE } from '../../../../src/adapters/mcp/tool-call-recorder';
import { DatabaseUnavailableError } from '../../../../src/domain/errors';
import { ToolCallRunner } from '../../../../src/adapters/mcp/tool-call-runner';
import { AllowedCalls } from '../../../../src/adapters/mcp/tool-gate';
import { ToolsCallFastPath } from '../../../../src/adapters/mcp/tools-call-fast-path';
import { ResponseFormat } from '../../../../src/adapters/mcp/streamable-http';
import { FakeExternalTools } from '../../../fakes/fake-external-tools';
import { FixedClock } from '../../../fakes/fixed-clock';
import { InMemoryAuditQueue } from '../../../fakes/in-memory-audit-queue';
import { InMemoryResourceStore } from '../../../fakes/in-memory-resource.store';
import { makeCallTool } from '../../../support/call-tool-service';
import { ScopeSetMother } from '../../../mothers/scope-set.mother';

const principal = { keyId: 'k', userId: 'alice', scopes: ScopeSetMother.full(), budgetId: 'k', rateLimit: null, hasQuota: false };
const origin = { requestId: 'req-1', ip: '203.0.113.9' };
const projects: AllowedCalls = new Map([
  ['projects', { kind: 'built-in', resource: 'projects' }],
  ['nope', null],
]);

/** What the fast path wrote, if it answered. */
class SpyResponse {
  statusCode = 0;
  headers: [string, string][] = [];
  body: string | undefined;
  setHeader(name: string, value: string) {
    this.headers.push([name, value]);
    return this;
  }
  end(body: string) {
    this.body = body;
    return this;
  }
}

function makeSut() {
  const audit = new InMemoryAuditQueue();
  const logged: unknown[] = [];
  const recorder = new ToolCallRecorder(audit, new FixedClock());
  const external = new FakeExternalTools();
  const runner = new ToolCallRunner(makeCallTool(new InMemoryResourceStore(), {}, external).sut, recorder, (e) => logged.push(e));
  const sut = new ToolsCallFastPath(runner);
  const serve = async (
    body: unknown,
    {
      format = 'json',
      calls = projects,
      headers = {},
    }: { format?: ResponseFormat; calls?: AllowedCalls; headers?: Record<string, string> } = {},
  ) => {
    const res = new SpyResponse();
    const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
    const served = await sut.tryServe(
      { body, headers } as unknown as Request,
      res as unknown as Response,
      principal,
      messages,
      format,
      calls,
      origin,
    );
    return { served, res };
  };
  return { serve, audit, logged };
}

const call = (params: Record<string, unknown>, id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });

describe('ToolsCallFastPath', () => {
  it('runs a built-in call, records it once and answers it as the SDK would, in JSON', async () => {
    const { serve, audit } = makeSut();
    const { served, res } = await serve(call({ name: 'projects', arguments: { action: 'list' } }, 'a'));
    expect(served).toBe(true);
    expect(res.statusCode).toBe(200);
    expect(res.headers).toEqual([['content-type', 'application/json']]);
    expect(res.body).toBe(
      '{"result":{"content":[{"type":"text","text":"{\\"records\\":[]}"}],"structuredContent":{"records":[]}},"jsonrpc":"2.0","id":"a"}',
    );
    expect(audit.records.map((r) => [r.action, r.details.outcome, r.requestId])).toEqual([['tool.called', 'ok', 'req-1']]);
  });

  it('answers a call whose audit event cannot be written with a JSON-RPC server error instead of its result', async () => {
    const { serve, audit } = makeSut();
    audit.failWith = new DatabaseUnavailableError();
    const { served, res } = await serve(call({ name: 'projects', arguments: { action: 'list' } }, 'a'));
    expect(served).toBe(true);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(String(res.body))).toEqual({ jsonrpc: '2.0', id: 'a', error: { code: -32000, message: UNAUDITED_MESSAGE } });
    expect(res.body).not.toContain('records');
  });

  it('answers in one SSE message event when the client takes only an event stream', async () => {
    const { serve } = makeSut();
    const { res } = await serve(call({ name: 'projects', arguments: { action: 'get' } }, 2), { format: 'sse' });
    expect(res.headers).toEqual([
      ['cache-control', 'no-cache, no-transform'],
      ['connection', 'keep-alive'],
      ['content-type', 'text/event-stream'],
      ['x-accel-buffering', 'no'],
    ]);
    expect(res.body).toMatch(
      /^event: message\ndata: \{"result":\{"content":\[\{"type":"text","text":".*"\}\],"isError":true\},"jsonrpc":"2\.0","id":2\}\n\n$/,
    );
  });

  it('answers an unknown tool -32602, as the SDK handler does, and records nothing', async () => {
    const { serve, audit } = makeSut();
    const { res } = await serve(call({ name: 'nope', arguments: {} }, 3));
    expect(JSON.parse(res.body!)).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: expect.stringContaining('nope') } });
    expect(audit.records).toEqual([]);
  });

  it.each([
    ['a batch', [call({ name: 'projects', arguments: { action: 'list' } })]],
    ['a notification', { jsonrpc: '2.0', method: 'tools/call', params: { name: 'projects' } }],
    ['another method', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ['params with _meta', call({ name: 'projects', arguments: {}, _meta: { progressToken: 1 } })],
    ['params asking for a task', call({ name: 'projects', arguments: {}, task: { ttl: 1000 } })],
    ['a message with a key of its own', { ...call({ name: 'projects' }), extra: 1 }],
    ['a fractional id', call({ name: 'projects' }, 1.5)],
    ['arguments that are not an object', call({ name: 'projects', arguments: [] })],
  ])('leaves %s to the SDK server, running nothing', async (_name, body) => {
    const { serve, audit } = makeSut();
    const { served, res } = await serve(body);
    expect(served).toBe(false);
    expect(res.body).toBeUndefined();
    expect(audit.records).toEqual([]);
  });

  it('leaves an unsupported MCP-Protocol-Version, an upstream tool and a call the gate did not see to the SDK server', async () => {
    const { serve } = makeSut();
    const tool = new FakeExternalTools().add('alice', 'files__echo', []);
    expect((await serve(call({ name: 'projects' }), { headers: { 'mcp-protocol-version': '1999-01-01' } })).served).toBe(false);
    expect((await serve(call({ name: 'files__echo' }), { calls: new Map([['files__echo', { kind: 'external', tool }]]) })).served).toBe(
      false,
    );
    expect((await serve(call({ name: 'projects' }), { calls: new Map() })).served).toBe(false);
    expect((await serve(call({ name: 'projects' }), { headers: { 'mcp-protocol-version': '2025-06-18' } })).served).toBe(true);
  });
});
