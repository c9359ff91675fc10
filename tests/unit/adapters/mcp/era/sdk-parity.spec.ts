import { createMcpHandler, McpHttpHandler, McpServer } from '@modelcontextprotocol/server';
import { EraHeaders, eraOf } from '../../../../../src/adapters/mcp/era/era-gate';
import { modernResultBody } from '../../../../../src/adapters/mcp/era/modern-answer';

/**
 * keygate answers 2026 requests itself before they reach the SDK, so its
 * answers must be the ones the SDK's own entry (createMcpHandler) gives:
 * same status, code and id for every refusal, and the same result bytes.
 * No socket: the handler takes a fetch Request.
 */
const V = '2026-07-28';
const SERVER_INFO = { name: 'parity', version: '1.0.0' };
const meta = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});

let handler: McpHttpHandler;
beforeAll(() => {
  handler = createMcpHandler(
    () => {
      const server = new McpServer(SERVER_INFO, { capabilities: { tools: {}, prompts: {}, resources: {} } });
      server.registerTool('echo', { description: 'echo' }, async () => ({ content: [{ type: 'text', text: 'hi' }] }));
      server.registerPrompt('greet', { description: 'greet' }, async () => ({ messages: [] }));
      // A prompt, not a tool: the SDK warns about tool names outside [A-Za-z0-9_.-].
      server.registerPrompt('café ☕', { description: 'not ASCII' }, async () => ({ messages: [] }));
      server.registerResource('a', 'file:///a', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'a' }] }));
      return server;
    },
    { legacy: 'reject' },
  );
});
afterAll(() => handler.close());

async function sdkAnswer(headers: EraHeaders, body: unknown) {
  const wire: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (headers.protocolVersion !== undefined) wire['mcp-protocol-version'] = headers.protocolVersion;
  if (headers.method !== undefined) wire['mcp-method'] = headers.method;
  if (headers.name !== undefined) wire['mcp-name'] = headers.name;
  const response = await handler.fetch(
    new Request('http://parity.test/mcp', { method: 'POST', headers: wire, body: JSON.stringify(body) }),
  );
  const text = await response.text();
  // A streamed answer is one `message` event holding the same JSON.
  const json = response.headers.get('content-type')?.startsWith('text/event-stream') ? /^data: (.*)$/m.exec(text)![1] : text;
  return { status: response.status, json };
}

const b64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
const request = (method: string, params: Record<string, unknown> = {}, id: string | number = 11) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { _meta: meta(), ...params },
});
const std = (method: string, extra: EraHeaders = {}): EraHeaders => ({ protocolVersion: V, method, ...extra });

const CASES: Array<[string, EraHeaders, unknown]> = [
  ['tools/list', std('tools/list'), request('tools/list')],
  ['tools/call, plain Mcp-Name', std('tools/call', { name: 'echo' }), request('tools/call', { name: 'echo', arguments: {} })],
  ['prompts/get, base64 Mcp-Name', std('prompts/get', { name: b64('café ☕') }), request('prompts/get', { name: 'café ☕' })],
  ['prompts/get', std('prompts/get', { name: 'greet' }), request('prompts/get', { name: 'greet' })],
  ['resources/read, base64 Mcp-Name', std('resources/read', { name: b64('file:///a') }), request('resources/read', { uri: 'file:///a' })],
  ['Mcp-Name mismatch', std('tools/call', { name: 'other' }), request('tools/call', { name: 'echo', arguments: {} })],
  ['Mcp-Name base64 of another name', std('tools/call', { name: b64('other') }), request('tools/call', { name: 'echo', arguments: {} })],
  ['Mcp-Name bad base64', std('tools/call', { name: '=?base64?ZWNobw?=' }), request('tools/call', { name: 'echo', arguments: {} })],
  ['Mcp-Name missing', std('tools/call'), request('tools/call', { name: 'echo', arguments: {} }, 'string-id')],
  ['Mcp-Name missing on resources/read', std('resources/read'), request('resources/read', { uri: 'file:///a' })],
  ['Mcp-Method mismatch', std('tools/call'), request('tools/list')],
  ['Mcp-Method missing', { protocolVersion: V }, request('tools/list')],
  ['MCP-Protocol-Version missing', { method: 'tools/list' }, request('tools/list')],
  ['MCP-Protocol-Version differs', std('tools/list', { protocolVersion: '2025-11-25' }), request('tools/list')],
  ['clientCapabilities missing', std('tools/list'), request('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': V } })],
  ['logLevel invalid', std('tools/list'), request('tools/list', { _meta: meta({ 'io.modelcontextprotocol/logLevel': 'loud' }) })],
  ['2026 header, no _meta', std('tools/list'), { jsonrpc: '2.0', id: 12, method: 'tools/list' }],
  [
    'unsupported version',
    std('tools/list', { protocolVersion: '2099-01-01' }),
    request('tools/list', { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) }),
  ],
  [
    '_meta claims 2025-11-25',
    std('tools/list', { protocolVersion: '2025-11-25' }),
    request('tools/list', { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }) }),
  ],
  ['initialize, 2026 _meta', std('initialize'), request('initialize')],
  ['ping', std('ping'), request('ping', {}, 'p')],
  ['logging/setLevel', std('logging/setLevel'), request('logging/setLevel', { level: 'info' })],
  ['resources/subscribe', std('resources/subscribe'), request('resources/subscribe', { uri: 'file:///a' })],
  ['resources/unsubscribe', std('resources/unsubscribe'), request('resources/unsubscribe', { uri: 'file:///a' })],
  [
    'initialize with a 2026 header',
    { protocolVersion: V },
    {
      jsonrpc: '2.0',
      id: 13,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    },
  ],
];

describe('the era gate answers as the SDK entry does', () => {
  it.each(CASES)('%s', async (_name, headers, body) => {
    const verdict = eraOf({ httpMethod: 'POST', headers, body });
    const sdk = await sdkAnswer(headers, body);
    if (verdict.era === 'rejected') {
      const { httpStatus, code, id } = verdict.rejection;
      expect({ status: sdk.status, code: JSON.parse(sdk.json).error.code, id: JSON.parse(sdk.json).id }).toEqual({
        status: httpStatus,
        code,
        id,
      });
    } else {
      expect(verdict.era).toBe('modern');
      expect(sdk.status).toBe(200);
      expect(JSON.parse(sdk.json).result).toBeDefined();
    }
  });
});

describe('modernResultBody writes the bytes the SDK writes', () => {
  it.each<[string, EraHeaders, Record<string, unknown>]>([
    ['tools/list', std('tools/list'), request('tools/list', {}, 21)],
    ['resources/read', std('resources/read', { name: 'file:///a' }), request('resources/read', { uri: 'file:///a' }, 22)],
    ['tools/call', std('tools/call', { name: 'echo' }), request('tools/call', { name: 'echo', arguments: {} }, 23)],
  ])('%s', async (method, headers, body) => {
    const sdk = await sdkAnswer(headers, body);
    const { resultType: _t, ttlMs: _l, cacheScope: _s, _meta: _m, ...bare } = JSON.parse(sdk.json).result;
    expect(modernResultBody(body.id as number, method, bare, { serverInfo: SERVER_INFO })).toBe(sdk.json);
  });
});
