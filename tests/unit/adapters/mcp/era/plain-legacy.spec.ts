import fc from 'fast-check';
import { classifyInboundRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { EraInput, eraOf, plainLegacyRequest } from '../../../../../src/adapters/mcp/era/era-gate';

const classified = ({ httpMethod, headers, body }: EraInput) =>
  classifyInboundRequest({
    httpMethod,
    ...(headers.protocolVersion !== undefined && { protocolVersionHeader: headers.protocolVersion }),
    ...(headers.method !== undefined && { mcpMethodHeader: headers.method }),
    ...(headers.name !== undefined && { mcpNameHeader: headers.name }),
    body,
  });

/** Bodies near what 2025 clients send, and near misses of every kind the shortcut must leave to the classifier. */
const member = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
);
const meta = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant([]),
  fc.record({ progressToken: fc.integer() }),
  fc.constantFrom('2025-11-25', '2026-07-28', 'x').map((v) => ({ [PROTOCOL_VERSION_META_KEY]: v })),
);
const params = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant([]),
  fc.string(),
  fc.record({ name: fc.string(), arguments: fc.dictionary(fc.string(), fc.string()) }, { requiredKeys: [] }),
  meta.map((m) => (m === undefined ? {} : { _meta: m })),
);
const wellFormed = fc.record(
  {
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.integer(), fc.string()),
    method: fc.constantFrom('tools/list', 'tools/call', 'resources/read', 'initialize', 'server/discover'),
    params,
  },
  { requiredKeys: ['jsonrpc', 'id', 'method'] },
);
const body = fc.oneof(
  { weight: 3, arbitrary: wellFormed },
  fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), member),
      id: fc.oneof(fc.integer(), fc.string(), fc.double(), member),
      method: fc.oneof(fc.constantFrom('tools/list', 'tools/call', 'initialize', 'ping', 'server/discover'), member),
      params,
      extra: member,
    },
    { requiredKeys: ['jsonrpc', 'method'] },
  ),
  member,
  fc.array(fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.constant('tools/list') })),
);
const input: fc.Arbitrary<EraInput> = fc.record({
  httpMethod: fc.constantFrom('POST', 'GET'),
  headers: fc.record(
    {
      protocolVersion: fc.constantFrom(undefined, '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', '1999-01-01'),
      method: fc.constantFrom(undefined, 'tools/list'),
      name: fc.constantFrom(undefined, 'x'),
    },
    { requiredKeys: [] },
  ),
  body,
});

describe("the era gate's shortcut for plain 2025 requests", () => {
  it('takes only requests the SDK classifies as legacy with no claim', () => {
    let taken = 0;
    fc.assert(
      fc.property(input, (i) => {
        if (!plainLegacyRequest(i)) return;
        taken += 1;
        expect(classified(i)).toMatchObject({ kind: 'legacy', reason: 'no-claim' });
        expect(eraOf(i)).toEqual({ era: 'legacy', reason: 'no-claim' });
      }),
      { numRuns: 5000, seed: 2611 },
    );
    expect(taken).toBeGreaterThan(100);
  });

  it.each<[string, EraInput]>([
    [
      'a 2026 claim in _meta',
      {
        httpMethod: 'POST',
        headers: {},
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28' } } },
      },
    ],
    [
      'a 2026 header',
      { httpMethod: 'POST', headers: { protocolVersion: '2026-07-28' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
    ],
    [
      'an Mcp-Method header',
      { httpMethod: 'POST', headers: { method: 'tools/call' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
    ],
    ['initialize', { httpMethod: 'POST', headers: {}, body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} } }],
    ['params that are an array', { httpMethod: 'POST', headers: {}, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [] } }],
    ['a notification', { httpMethod: 'POST', headers: {}, body: { jsonrpc: '2.0', method: 'notifications/initialized' } }],
  ])('leaves %s to the classifier', (_, i) => {
    expect(plainLegacyRequest(i)).toBe(false);
  });

  it('takes what a 2025 client sends after initialize', () => {
    expect(
      plainLegacyRequest({
        httpMethod: 'POST',
        headers: { protocolVersion: '2025-06-18' },
        body: {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'projects', arguments: { action: 'get' }, _meta: { progressToken: 1 } },
        },
      }),
    ).toBe(true);
  });
});
