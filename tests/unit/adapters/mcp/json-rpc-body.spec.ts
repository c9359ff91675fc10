import fc from 'fast-check';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { RELATED_TASK_META_KEY } from '@modelcontextprotocol/server';
import { isPlainRequest } from '../../../../src/adapters/mcp/json-rpc-body';

/** Bodies near what clients send, with every kind of _meta the request schema looks into. */
const member = fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant([]), fc.constant({}));
const meta = fc.oneof(
  member,
  fc.record(
    {
      'io.modelcontextprotocol/protocolVersion': fc.constantFrom('2026-07-28', '2025-11-25'),
      'io.modelcontextprotocol/clientCapabilities': fc.oneof(fc.constant({}), fc.constant({ elicitation: {} }), member),
      traceparent: fc.string(),
      progressToken: fc.oneof(fc.string(), fc.integer(), fc.double(), member),
      [RELATED_TASK_META_KEY]: fc.oneof(fc.record({ taskId: fc.string() }), member),
    },
    { requiredKeys: [] },
  ),
);
const params = fc.oneof(member, fc.record({ name: fc.string(), cursor: fc.oneof(fc.string(), member), _meta: meta }, { requiredKeys: [] }));
const wellFormed = fc.record(
  {
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.integer(), fc.string(), fc.constant(-(2 ** 53))),
    method: fc.constantFrom('tools/list', 'tools/call', 'server/discover'),
    params,
  },
  { requiredKeys: ['jsonrpc', 'id', 'method'] },
);
const nearMiss = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), member),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 300 }), fc.double(), member),
    method: fc.oneof(fc.constantFrom('tools/list', 'tools/call', 'server/discover'), member),
    params,
    extra: member,
  },
  { requiredKeys: ['jsonrpc', 'method'] },
);
const body = fc.oneof({ weight: 3, arbitrary: wellFormed }, nearMiss);

describe('the hand check of a lone JSON-RPC request', () => {
  it("takes only bodies the SDK's message schema accepts, and as the schema would give them", () => {
    let taken = 0;
    fc.assert(
      fc.property(body, (b) => {
        if (!isPlainRequest(b)) return;
        taken += 1;
        const parsed = JSONRPCMessageSchema.safeParse(b);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(b);
      }),
      { numRuns: 3000 },
    );
    expect(taken).toBeGreaterThan(100);
  });

  it('takes a 2026-07-28 request, whose params always carry the _meta envelope', () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    };
    expect(isPlainRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } })).toBe(true);
  });

  it.each([
    ['a progress token', { progressToken: 'p' }],
    ['a related task', { [RELATED_TASK_META_KEY]: { taskId: 't' } }],
    ['an array', []],
    ['null', null],
  ])('leaves a _meta with %s to the schema', (_name, m) => {
    expect(isPlainRequest({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: m } })).toBe(false);
  });
});
