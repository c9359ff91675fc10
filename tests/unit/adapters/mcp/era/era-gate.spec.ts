import { EraHeaders, eraOf, EraVerdict } from '../../../../../src/adapters/mcp/era/era-gate';

const V = '2026-07-28';
const meta = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});
/** A modern request with the headers a 2026 client sends, unless overridden. */
function modern(method: string, params: Record<string, unknown> = {}, headers: EraHeaders = {}, id: string | number = 7) {
  return eraOf({
    httpMethod: 'POST',
    headers: { protocolVersion: V, method, ...headers },
    body: { jsonrpc: '2.0', id, method, params: { ...params, _meta: (params._meta as object | undefined) ?? meta() } },
  });
}
const post = (body: unknown, headers: EraHeaders = {}) => eraOf({ httpMethod: 'POST', headers, body });
const b64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

function rejection(verdict: EraVerdict) {
  if (verdict.era !== 'rejected') throw new Error(`expected a rejection, got ${JSON.stringify(verdict)}`);
  return verdict.rejection;
}

describe('eraOf: 2025 requests stay on the legacy path', () => {
  it.each([
    [
      'initialize',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      },
      {},
      'initialize',
    ],
    [
      'a request without the 2026 _meta claim',
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { protocolVersion: '2025-11-25' },
      'no-claim',
    ],
    [
      'a request whose _meta has other keys but no protocolVersion',
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/list',
        params: { _meta: { progressToken: 1, 'io.modelcontextprotocol/clientCapabilities': {} } },
      },
      {},
      'no-claim',
    ],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }, { protocolVersion: '2025-11-25' }, 'notification'],
    [
      'a batch',
      [
        { jsonrpc: '2.0', id: 4, method: 'tools/list' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
      ],
      {},
      'batch',
    ],
    ['a posted response', { jsonrpc: '2.0', id: 5, result: {} }, {}, 'response'],
  ])('%s', (_name, body, headers, reason) => {
    expect(post(body, headers)).toEqual({ era: 'legacy', reason });
  });

  it('GET and DELETE, the 2025 session stream and its end', () => {
    for (const httpMethod of ['GET', 'DELETE'])
      expect(eraOf({ httpMethod, headers: { protocolVersion: V }, body: undefined })).toEqual({ era: 'legacy', reason: 'http-method' });
  });
});

describe('eraOf: 2026-07-28 requests are modern', () => {
  it('carries the revision, the id and the _meta envelope, trace context included', () => {
    const clientInfo = { name: 'c', version: '2' };
    const _meta = meta({
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
      'io.modelcontextprotocol/clientInfo': clientInfo,
      'io.modelcontextprotocol/logLevel': 'info',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(modern('tools/list', { _meta }, {}, 'a1')).toEqual({
      era: 'modern',
      revision: V,
      kind: 'request',
      method: 'tools/list',
      id: 'a1',
      envelope: { clientCapabilities: { elicitation: {} }, clientInfo, logLevel: 'info', meta: _meta },
    });
  });

  it('accepts Mcp-Name equal to params.name or params.uri, plain or base64', () => {
    expect(modern('tools/call', { name: 'echo', arguments: {} }, { name: 'echo' })).toMatchObject({ era: 'modern', method: 'tools/call' });
    expect(modern('tools/call', { name: 'café ☕', arguments: {} }, { name: b64('café ☕') })).toMatchObject({ era: 'modern' });
    expect(modern('prompts/get', { name: 'greet' }, { name: 'greet' })).toMatchObject({ era: 'modern' });
    expect(modern('resources/read', { uri: 'file:///a b.txt' }, { name: b64('file:///a b.txt') })).toMatchObject({ era: 'modern' });
  });

  it('needs no Mcp-Name for other methods, nor Mcp-Method or MCP-Protocol-Version on a notification', () => {
    expect(modern('resources/list')).toMatchObject({ era: 'modern' });
    const cancelled = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: meta() } };
    expect(post(cancelled)).toMatchObject({ era: 'modern', kind: 'notification', id: null });
  });

  it('leaves a tools/call without a name to the params check', () => {
    expect(modern('tools/call', { arguments: {} })).toMatchObject({ era: 'modern' });
  });
});

describe('eraOf: header mismatch is 400 -32020', () => {
  it.each<[string, ReturnType<typeof modern>, string]>([
    ['Mcp-Name differs from params.name', modern('tools/call', { name: 'echo' }, { name: 'delete_all' }), 'Mcp-Name'],
    ['base64 Mcp-Name decodes to another name', modern('tools/call', { name: 'echo' }, { name: b64('delete_all') }), 'Mcp-Name'],
    ['Mcp-Name left base64-encoded is compared decoded', modern('tools/call', { name: b64('echo') }, { name: b64('echo') }), 'Mcp-Name'],
    ['Mcp-Name differs from params.uri', modern('resources/read', { uri: 'file:///a' }, { name: 'file:///b' }), 'Mcp-Name'],
    ['Mcp-Name is not canonical base64', modern('tools/call', { name: 'echo' }, { name: '=?base64?ZWNobw?=' }), 'Mcp-Name'],
    ['Mcp-Name is base64 of bytes that are not UTF-8', modern('tools/call', { name: 'echo' }, { name: '=?base64?/w==?=' }), 'Mcp-Name'],
    ['Mcp-Name missing on tools/call', modern('tools/call', { name: 'echo' }), 'Mcp-Name'],
    ['Mcp-Name missing on resources/read', modern('resources/read', { uri: 'file:///a' }), 'Mcp-Name'],
    ['Mcp-Name missing on prompts/get', modern('prompts/get', { name: 'greet' }), 'Mcp-Name'],
    ['Mcp-Method differs from the method', modern('tools/list', {}, { method: 'tools/call' }), 'Mcp-Method'],
    ['Mcp-Method missing', modern('tools/list', {}, { method: undefined }), 'Mcp-Method'],
    ['MCP-Protocol-Version missing', modern('tools/list', {}, { protocolVersion: undefined }), 'MCP-Protocol-Version'],
    ['MCP-Protocol-Version differs from _meta', modern('tools/list', {}, { protocolVersion: '2025-11-25' }), 'MCP-Protocol-Version'],
  ])('%s', (_name, verdict, header) => {
    expect(rejection(verdict)).toEqual({
      httpStatus: 400,
      id: 7,
      code: -32020,
      message: expect.stringContaining(header),
      data: { header },
    });
  });

  it('rejects initialize sent with a 2026 MCP-Protocol-Version header', () => {
    const body = {
      jsonrpc: '2.0',
      id: 'i',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    };
    expect(rejection(post(body, { protocolVersion: V }))).toMatchObject({
      httpStatus: 400,
      id: 'i',
      code: -32020,
      data: { header: 'MCP-Protocol-Version' },
    });
  });

  it('quotes neither the header nor the body: a resource URI may carry a signature', () => {
    const uri = 'https://files.example/a?sig=SECRET1';
    const { message, data } = rejection(modern('resources/read', { uri }, { name: 'https://files.example/a?sig=SECRET2' }));
    expect(JSON.stringify({ message, data })).not.toMatch(/SECRET/);
  });
});

describe('eraOf: a bad _meta is 400 -32602', () => {
  it.each([
    ['clientCapabilities missing', { 'io.modelcontextprotocol/protocolVersion': V }],
    ['clientCapabilities not an object', meta({ 'io.modelcontextprotocol/clientCapabilities': 'all' })],
    ['protocolVersion not a string', meta({ 'io.modelcontextprotocol/protocolVersion': 20260728 })],
    ['logLevel not a level', meta({ 'io.modelcontextprotocol/logLevel': 'loud' })],
    ['clientInfo without a string name', meta({ 'io.modelcontextprotocol/clientInfo': { name: 1, version: '1' } })],
  ])('%s', (_name, _meta) => {
    expect(rejection(modern('tools/list', { _meta }))).toMatchObject({ httpStatus: 400, id: 7, code: -32602 });
  });

  it('a 2026 MCP-Protocol-Version header on a body without _meta', () => {
    expect(rejection(post({ jsonrpc: '2.0', id: 8, method: 'tools/list' }, { protocolVersion: V, method: 'tools/list' }))).toMatchObject({
      httpStatus: 400,
      id: 8,
      code: -32602,
    });
  });
});

describe('eraOf: an unsupported version is 400 -32022', () => {
  it('names the supported revisions and the requested one', () => {
    const _meta = meta({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' });
    expect(rejection(modern('tools/list', { _meta }, { protocolVersion: '2099-01-01' }))).toEqual({
      httpStatus: 400,
      id: 7,
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: ['2026-07-28'], requested: '2099-01-01' },
    });
  });

  it('also for a _meta that claims a 2025 revision, which neither era serves', () => {
    const _meta = meta({ 'io.modelcontextprotocol/protocolVersion': '2025-11-25' });
    expect(rejection(modern('tools/list', { _meta }, { protocolVersion: '2025-11-25' }))).toMatchObject({
      code: -32022,
      data: { requested: '2025-11-25' },
    });
  });

  it('clips a long requested version', () => {
    const long = `2099-${'9'.repeat(500)}`;
    const _meta = meta({ 'io.modelcontextprotocol/protocolVersion': long });
    const { data } = rejection(modern('tools/list', { _meta }, { protocolVersion: long }));
    expect((data as { requested: string }).requested.length).toBeLessThanOrEqual(64);
  });
});

describe('eraOf: methods 2026-07-28 removed are 404 -32601', () => {
  it.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'])('%s', (method) => {
    const params = method.startsWith('resources/') ? { uri: 'file:///a' } : method === 'logging/setLevel' ? { level: 'info' } : {};
    expect(rejection(modern(method, params))).toEqual({ httpStatus: 404, id: 7, code: -32601, message: 'Method not found' });
  });
});

describe('eraOf: every rejection echoes the id', () => {
  it.each<[string, (id: string | number) => EraVerdict]>([
    ['-32020', (id) => modern('tools/call', { name: 'echo' }, { name: 'other' }, id)],
    ['-32602', (id) => modern('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': V } }, {}, id)],
    [
      '-32022',
      (id) =>
        modern(
          'tools/list',
          { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) },
          { protocolVersion: '2099-01-01' },
          id,
        ),
    ],
    ['-32601', (id) => modern('ping', {}, {}, id)],
  ])('%s', (_code, make) => {
    for (const id of ['req-9', 0, 42]) expect(rejection(make(id)).id).toBe(id);
  });

  it('and answers id null where there is none: a batch with a 2026 request in it', () => {
    const batch = [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } }];
    expect(rejection(post(batch))).toMatchObject({ httpStatus: 400, id: null, code: -32600 });
  });
});
