import fc from 'fast-check';
import {
  classifyInboundRequest,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  TRACEPARENT_META_KEY,
} from '@modelcontextprotocol/server';
import { EraInput, eraOf, plainModernRoute } from '../../../../../src/adapters/mcp/era/era-gate';

const classified = ({ httpMethod, headers, body }: EraInput) =>
  classifyInboundRequest({
    httpMethod,
    ...(headers.protocolVersion !== undefined && { protocolVersionHeader: headers.protocolVersion }),
    ...(headers.method !== undefined && { mcpMethodHeader: headers.method }),
    ...(headers.name !== undefined && { mcpNameHeader: headers.name }),
    body,
  });

/** Bodies near what 2026 clients send, and near misses of every kind the shortcut must leave to the classifier. */
const V = '2026-07-28';
const member = fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}));
const capabilities = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom({}, { elicitation: {} }, { sampling: {}, roots: {}, experimental: {} }) },
  fc.constant({ elicitation: { form: {} } }),
  fc.constant({ roots: { listChanged: true } }),
  fc.constant({ roots: { listChanged: 'yes' } }),
  fc.constant({ sampling: null }),
  fc.constant({ unknown: {} }),
  fc.constant({ experimental: { x: {} } }),
  fc.constant({ tasks: {} }),
  member,
);
const clientInfo = fc.oneof(
  { weight: 4, arbitrary: fc.record({ name: fc.string(), version: fc.string() }) },
  fc.record({ name: fc.string() }),
  fc.record({ name: fc.string(), version: fc.string(), title: fc.string() }),
  fc.record({ name: fc.integer(), version: fc.string() }),
  member,
);
const plainMeta = fc.record(
  {
    [PROTOCOL_VERSION_META_KEY]: fc.constant(V),
    [CLIENT_CAPABILITIES_META_KEY]: capabilities,
    [CLIENT_INFO_META_KEY]: clientInfo,
    [TRACEPARENT_META_KEY]: fc.oneof(fc.string(), member),
  },
  { requiredKeys: [PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY] },
);
const anyMeta = fc.record(
  {
    [PROTOCOL_VERSION_META_KEY]: fc.oneof(fc.constantFrom(V, V, V, '2025-11-25', '2099-01-01', ` ${V}`), member),
    [CLIENT_CAPABILITIES_META_KEY]: capabilities,
    [CLIENT_INFO_META_KEY]: clientInfo,
    [LOG_LEVEL_META_KEY]: fc.oneof(fc.constantFrom('debug', 'loud'), member),
    [TRACEPARENT_META_KEY]: fc.oneof(fc.constant('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'), fc.string(), member),
    progressToken: fc.oneof(fc.string(), fc.integer(), member),
    other: member,
  },
  { requiredKeys: [] },
);
const meta = fc.oneof({ weight: 3, arbitrary: plainMeta }, anyMeta);
const params = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ _meta: meta, name: fc.string(), cursor: fc.oneof(fc.string(), member) }, { requiredKeys: ['_meta'] }),
  },
  fc.record({ _meta: member }),
  member,
);
const METHODS = ['tools/list', 'tools/call', 'server/discover', 'initialize', 'ping', 'resources/read'];
const body = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      jsonrpc: fc.constant('2.0'),
      id: fc.oneof(fc.integer(), fc.string(), fc.constant(2 ** 53)),
      method: fc.constantFrom(...METHODS),
      params,
    }),
  },
  fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), member),
      id: fc.oneof(fc.integer(), fc.double(), member),
      method: fc.oneof(fc.constantFrom(...METHODS), member),
      params,
      result: member,
      error: member,
      extra: member,
    },
    { requiredKeys: ['jsonrpc'] },
  ),
  member,
);
const input: fc.Arbitrary<EraInput> = fc
  .tuple(
    body,
    fc.constantFrom('POST', 'POST', 'POST', 'GET'),
    fc.constantFrom(V, V, V, V, '2025-11-25', `${V} `, undefined),
    fc.constantFrom('same', 'same', 'same', 'same', 'other', 'none'),
    fc.constantFrom(undefined, 'echo'),
  )
  .map(([b, httpMethod, protocolVersion, methodHeader, name]) => {
    const method = (b as { method?: unknown } | null)?.method;
    const headerMethod =
      methodHeader === 'same' && typeof method === 'string' ? method : methodHeader === 'other' ? 'tools/list' : undefined;
    return {
      httpMethod,
      headers: {
        ...(protocolVersion !== undefined && { protocolVersion }),
        ...(headerMethod !== undefined && { method: headerMethod }),
        ...(name !== undefined && { name }),
      },
      body: b,
    };
  });

describe("the era gate's shortcut for plain 2026 requests", () => {
  it('takes only requests the SDK classifies as modern, with the same route', () => {
    let taken = 0;
    fc.assert(
      fc.property(input, (i) => {
        const route = plainModernRoute(i);
        if (route === undefined) return;
        taken += 1;
        expect(classified(i)).toEqual(route);
      }),
      { numRuns: 20000 },
    );
    expect(taken).toBeGreaterThan(50);
  });

  it('takes what the SDK v2 client and the benchmark send, and eraOf answers it as through the classifier', () => {
    const body = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: {
        name: 'echo',
        arguments: {},
        _meta: {
          [PROTOCOL_VERSION_META_KEY]: V,
          [CLIENT_CAPABILITIES_META_KEY]: { elicitation: {} },
          [CLIENT_INFO_META_KEY]: { name: 'c', version: '1' },
        },
      },
    };
    const i = { httpMethod: 'POST', headers: { protocolVersion: V, method: 'tools/call', name: 'echo' }, body };
    expect(plainModernRoute(i)).toEqual(classified(i));
    expect(eraOf(i)).toMatchObject({ era: 'modern', revision: V, kind: 'request', method: 'tools/call', id: 3 });
    // The header rung after it is unchanged: a wrong Mcp-Name is still -32020.
    expect(eraOf({ ...i, headers: { ...i.headers, name: 'other' } })).toMatchObject({
      era: 'rejected',
      rejection: { httpStatus: 400, code: -32020, id: 3 },
    });
  });

  it('leaves the removed methods to their 404 after it', () => {
    const i = {
      httpMethod: 'POST',
      headers: { protocolVersion: V, method: 'ping' },
      body: {
        jsonrpc: '2.0',
        id: 'p',
        method: 'ping',
        params: { _meta: { [PROTOCOL_VERSION_META_KEY]: V, [CLIENT_CAPABILITIES_META_KEY]: {} } },
      },
    };
    expect(eraOf(i)).toMatchObject({ era: 'rejected', rejection: { httpStatus: 404, code: -32601, id: 'p' } });
  });
});
