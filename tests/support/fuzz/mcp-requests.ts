import fc from 'fast-check';
import { FuzzRequest, makeRequest } from './fuzz-request';
import { accept, contentType, headerSafe, transport } from './http-variants';
import { JsonText } from './json-text';
import { McpFixture, VERSIONS } from './mcp-messages';

const MCP_ACCEPTS = [
  'application/json, text/event-stream',
  'application/json',
  'text/event-stream',
  '*/*',
  'text/html',
  '',
  'application/*',
  'text/*',
  'application/json;q=0, text/event-stream',
  'application/json;q=0',
  'application/json;q=0, text/event-stream;q=0',
  'text/event-stream;q=0.5, */*;q=0.1',
];

/** Messages the server takes as they are, for properties that vary the headers. */
export const ORDINARY_MESSAGES = [
  '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}',
  '{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}',
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"projects","arguments":{"action":"list"}}}',
  '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  '[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"tools/list"}]',
];

/** Labels of the credentials that hold a valid key (see credentials.ts). */
export const GOOD_KEYS = ['full-access key', 'narrow key'];

/**
 * A request to /mcp around `body`. With `headers` false it is an ordinary POST
 * with a good key; with it true, the method, path, key headers, Content-Type,
 * Accept, Mcp-Protocol-Version, Origin and body encoding are generated too.
 */
export function mcpRequest(fx: McpFixture, body: fc.Arbitrary<JsonText>, headers = false): fc.Arbitrary<FuzzRequest> {
  const good = fx.credentials.filter((c) => GOOD_KEYS.includes(c.label));
  return fc
    .record({
      method: headers
        ? fc.oneof(
            { weight: 30, arbitrary: fc.constant('POST') },
            { weight: 1, arbitrary: fc.constantFrom('GET', 'DELETE', 'PUT', 'OPTIONS', 'HEAD', 'PATCH') },
          )
        : fc.constant('POST'),
      path: headers
        ? fc.oneof(
            { weight: 20, arbitrary: fc.constant('/mcp') },
            { weight: 1, arbitrary: fc.constantFrom('/mcp/', '/MCP', '/mcp?x=1', '/mcp?sessionId=%00', '/mcp/%ff', '/mcp;a') },
          )
        : fc.constant('/mcp'),
      credential: fc.constantFrom(...(headers ? fx.credentials : good)),
      contentType: headers
        ? fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: contentType })
        : fc.constant('application/json'),
      accept: headers
        ? fc.oneof(
            { weight: 3, arbitrary: fc.constant('application/json, text/event-stream') },
            { weight: 2, arbitrary: accept(MCP_ACCEPTS) },
          )
        : fc.constantFrom('application/json, text/event-stream', 'text/event-stream'),
      version: headers
        ? fc.oneof(
            { weight: 4, arbitrary: fc.constant(undefined) },
            { weight: 1, arbitrary: fc.constantFrom(...VERSIONS, 'x'.repeat(300)).map(headerSafe) },
          )
        : fc.constant(undefined),
      extra: headers
        ? fc.oneof(
            { weight: 10, arbitrary: fc.constant({}) },
            {
              weight: 1,
              arbitrary: fc.constantFrom<Record<string, string>>(
                { Origin: 'http://localhost:3000' },
                { Origin: 'https://evil.example' },
                { Origin: 'null' },
                { 'Mcp-Session-Id': 'abc' },
                { 'Last-Event-ID': '1' },
                { Host: 'evil.example' },
              ),
            },
          )
        : fc.constant({}),
      text: body,
      transport: headers ? transport : fc.constant('plain' as const),
      seed: fc.nat(),
    })
    .map((r) =>
      makeRequest({
        method: r.method,
        path: r.path,
        headers: {
          ...r.credential.headers,
          'Content-Type': r.contentType,
          Accept: r.accept,
          'Mcp-Protocol-Version': r.version,
          ...r.extra,
        },
        credential: r.credential.label,
        text: r.text,
        transport: r.transport,
        seed: r.seed,
      }),
    );
}
