import fc from 'fast-check';
import { RESOURCES } from '../../../src/domain/scope';
import { ACTIONS, SUBRESOURCES } from '../../../src/domain/tool';
import {
  arrayText,
  deep,
  FieldSpec,
  hugeArray,
  JsonText,
  leaf,
  longString,
  malformedJson,
  nastyKey,
  nastyString,
  nastyValue,
  objectText,
  objectWith,
  oversize,
  protoObject,
  text,
  Wildness,
} from './json-text';
import { Credential } from './rest-requests';
import { scopeArray } from './scope-values';

export const MCP_MAX_BODY_BYTES = 1024 * 1024;

export interface McpFixture {
  credentials: Credential[];
  /** Ids of records and items of the keys' user, so ids in generated calls hit real rows too. */
  recordIds: string[];
}

export const VERSIONS = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
  '1999-01-01',
  '',
  'latest',
  '2025-11-25\u0000',
];
const SUBRESOURCE_NAMES = [...new Set(Object.values(SUBRESOURCES).flat())];
const OTHER_METHODS = [
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'logging/setLevel',
  'completion/complete',
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
  'tasks/list',
  'tasks/get',
  'tools/List',
  'TOOLS/LIST',
  'tools/call/',
  '',
  'rpc.discover',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'tools/list\u0000',
  '\ud800',
];
const NOTIFICATIONS = [
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'notifications/message',
  'notifications/unknown',
];

/** A message's id: mostly good ones, then every JSON type that is not. */
const rpcId: fc.Arbitrary<JsonText | null> = fc.oneof(
  { weight: 16, arbitrary: fc.integer({ min: -1000, max: 1_000_000 }).map(String) },
  { weight: 4, arbitrary: nastyString(16).map(text) },
  { weight: 1, arbitrary: fc.constantFrom('null', '1.5', 'true', '{}', '[]', '1e400', '-0', '""', '9007199254740993', '{"__proto__":1}') },
  { weight: 1, arbitrary: longString(1000, 30_000).map(text) },
  { weight: 1, arbitrary: fc.constant(null) },
);

const jsonrpc: fc.Arbitrary<JsonText | null> = fc.oneof(
  { weight: 30, arbitrary: fc.constant('"2.0"') },
  { weight: 1, arbitrary: fc.constantFrom('"1.0"', '2', '2.0', 'null', '"2.0\u0000"', '" 2.0"', '{}') },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** A JSON-RPC message: its four members, each possibly missing or wrong, and now and then one more. */
const message = (
  method: fc.Arbitrary<JsonText>,
  params: fc.Arbitrary<JsonText | null>,
  id: fc.Arbitrary<JsonText | null> = rpcId,
): fc.Arbitrary<JsonText> =>
  fc
    .tuple(
      jsonrpc,
      id,
      method,
      params,
      fc.oneof(
        { weight: 30, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.tuple(fc.oneof(fc.constantFrom('result', 'error', '_meta', 'id'), nastyKey), nastyValue) },
      ),
    )
    .map(([j, i, m, p, extra]) => {
      const entries: [string, JsonText][] = [];
      if (j !== null) entries.push(['jsonrpc', j]);
      if (i !== null) entries.push(['id', i]);
      entries.push(['method', m]);
      if (p !== null) entries.push(['params', p]);
      if (extra) entries.push(extra);
      return objectText(entries);
    });

/** `value`, or null (left out) one time in `freq`. */
const optional = (value: fc.Arbitrary<JsonText>, freq = 4) => fc.option(value, { freq, nil: null });

export function mcpMessages(fx: McpFixture) {
  const recordId = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...fx.recordIds).map(text) },
    { weight: 2, arbitrary: fc.uuid().map(text) },
    { weight: 1, arbitrary: fc.constantFrom(...fx.recordIds).map((id) => text(id.toUpperCase())) },
  );
  // Data fields of every action and of an mcp_servers record, each there one time in three.
  const data = objectWith(
    {
      name: fc.oneof(fc.constantFrom('srv', 'a-b', 'x'.repeat(32), 'x'.repeat(33), 'UPPER', 'a_b').map(text), nastyString(20).map(text)),
      url: fc
        .constantFrom(
          'http://upstream.invalid/mcp',
          'https://127.0.0.1/mcp',
          'http://[::1]:1/',
          'http://169.254.169.254/latest',
          'file:///etc/passwd',
          'javascript:alert(1)',
          'http://10.0.0.1/mcp',
          'ftp://x.invalid/',
        )
        .map(text),
      headers: objectWith({ Authorization: nastyString(20).map(text), 'X-Api-Key': fc.constant('"********"') }),
      tool_scopes: fc.array(fc.tuple(nastyKey, scopeArray), { maxLength: 3 }).map(objectText),
      description: nastyString(40).map(text),
      text: nastyString(20).map(text),
      where: fc.oneof(fc.constant('{}'), fc.constant('{"name":"fixture"}'), nastyValue),
      item_id: recordId,
      target_id: recordId,
      target_resource: fc.constantFrom(...RESOURCES, 'mcp', 'nope', '__proto__').map(text),
      title: fc.oneof({ weight: 4, arbitrary: nastyString(30) }, { weight: 1, arbitrary: longString(1, 60_000) }).map(text),
    },
    { present: 0.3, nastyEvery: 5, extraEvery: 8 },
  );
  const args = objectWith(
    {
      // Writes (create, update) more often than the rest: they take data to the database.
      action: [
        fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(...ACTIONS).map(text) },
          { weight: 4, arbitrary: fc.constantFrom('create', 'update').map(text) },
          { weight: 1, arbitrary: fc.constantFrom('GET', 'list ', 'drop', '').map(text) },
        ),
        0.95,
      ],
      subresource: [
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...SUBRESOURCE_NAMES).map(text) },
          { weight: 1, arbitrary: nastyString(10).map(text) },
        ),
        0.4,
      ],
      id: [recordId, 0.5],
      data: [
        fc.oneof(
          { weight: 12, arbitrary: data },
          { weight: 1, arbitrary: protoObject(data) },
          { weight: 1, arbitrary: deep(33, 10_000) },
          { weight: 1, arbitrary: hugeArray(leaf, 13, 3000).map((a) => `{"items":${a}}`) },
        ),
        0.7,
      ],
    },
    { nastyEvery: 12, extraEvery: 12 },
  );
  const toolName = fc.oneof(
    { weight: 16, arbitrary: fc.constantFrom(...RESOURCES).map(text) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('unknown', 'srv__tool', 'a__b__c', '__', 'Agents', 'agents ', 'mcp_servers__x', 'toString', '__proto__')
        .map(text),
    },
    { weight: 1, arbitrary: nastyString(20).map(text) },
  );
  const meta = fc.oneof(
    { weight: 12, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.oneof(fc.constant('{"progressToken":1}'), nastyValue) },
  );
  const withMeta = (fields: Record<string, FieldSpec>, wild?: Wildness) =>
    fc
      .tuple(objectWith(fields, wild), meta)
      .map(([obj, m]) => (m === null ? obj : obj.replace(/^\{/, `{"_meta":${m}${obj === '{}' ? '' : ','}`)));

  const initialize = message(
    fc.constant('"initialize"'),
    optional(
      withMeta({
        protocolVersion: fc.constantFrom(...VERSIONS).map(text),
        capabilities: fc.oneof(fc.constant('{}'), fc.constant('{"roots":{"listChanged":true},"sampling":{}}'), nastyValue),
        clientInfo: fc.oneof(
          fc.constant('{"name":"fuzz","version":"1"}'),
          objectWith({ name: nastyString().map(text), version: nastyString().map(text) }),
        ),
      }),
      8,
    ),
  );
  const rarelyNasty = (good: string) => fc.oneof({ weight: 3, arbitrary: fc.constant(good) }, { weight: 1, arbitrary: nastyValue });
  const ping = message(fc.constant('"ping"'), optional(rarelyNasty('{}'), 2));
  const toolsList = message(
    fc.constant('"tools/list"'),
    optional(withMeta({ agent_scopes: [scopeArray, 0.7], cursor: [fc.oneof(fc.constant('"abc"'), nastyValue), 0.15] }), 6),
  );
  const toolsCall = message(
    fc.constant('"tools/call"'),
    fc.oneof(
      { weight: 20, arbitrary: withMeta({ name: [toolName, 0.97], arguments: [args, 0.95] }, { nastyEvery: 20, extraEvery: 20 }) },
      { weight: 1, arbitrary: nastyValue },
      { weight: 1, arbitrary: fc.constant(null) },
    ),
  );
  const notification = message(
    fc.constantFrom(...NOTIFICATIONS).map(text),
    optional(rarelyNasty('{"requestId":1,"reason":"x"}'), 2),
    fc.constant(null),
  );
  const other = message(
    fc.oneof(fc.constantFrom(...OTHER_METHODS).map(text), nastyString(20).map(text), fc.constantFrom('1', 'null', '{}', '["ping"]')),
    optional(rarelyNasty('{}'), 2),
  );
  const response = fc.tuple(rpcId, nastyValue).map(([id, v]) => `{"jsonrpc":"2.0","id":${id ?? 1},"result":${v}}`);
  const errorResponse = fc
    .tuple(rpcId, nastyValue)
    .map(([id, v]) => `{"jsonrpc":"2.0","id":${id ?? 1},"error":{"code":-32000,"message":"x","data":${v}}}`);
  const any = fc.oneof(
    { weight: 2, arbitrary: initialize },
    { weight: 1, arbitrary: ping },
    { weight: 3, arbitrary: toolsList },
    { weight: 6, arbitrary: toolsCall },
    { weight: 1, arbitrary: notification },
    { weight: 1, arbitrary: other },
    { weight: 1, arbitrary: fc.oneof(response, errorResponse) },
  );
  /** Small batches of anything; large ones of cheap messages, up to the SDK's 100 and past it. */
  const cheap = fc.oneof(ping, notification, toolsList);
  const batch = fc.oneof(
    { weight: 8, arbitrary: fc.array(any, { minLength: 0, maxLength: 5 }).map(arrayText) },
    { weight: 3, arbitrary: hugeArray(cheap, 50, 100, 900_000) },
    { weight: 1, arbitrary: hugeArray(cheap, 101, 2000, 900_000) },
  );
  return { initialize, ping, toolsList, toolsCall, notification, other, any, batch, args };
}

/** Bodies that are no message at all: malformed, not an object, nested deep, over 1 MiB. */
export const oddMcpBody = (message: fc.Arbitrary<JsonText>): fc.Arbitrary<JsonText> =>
  fc.oneof(
    { weight: 2, arbitrary: malformedJson(message) },
    { weight: 1, arbitrary: nastyValue },
    { weight: 1, arbitrary: deep(33, 10_000) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(deep(33, 10_000), rpcId)
        .map(
          ([d, id]) =>
            `{"jsonrpc":"2.0","id":${id ?? 1},"method":"tools/call","params":{"name":"projects","arguments":{"action":"create","data":{"x":${d}}}}}`,
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(deep(33, 10_000), rpcId)
        .map(([d, id]) => `{"jsonrpc":"2.0","id":${id ?? 1},"method":"tools/list","params":{"agent_scopes":${d}}}`),
    },
    { weight: 1, arbitrary: oversize(MCP_MAX_BODY_BYTES, 'method') },
  );

/** A whole /mcp body: one message or a batch, or bytes that are neither. */
export const mcpBody = (message: fc.Arbitrary<JsonText>, batch: fc.Arbitrary<JsonText>): fc.Arbitrary<JsonText> =>
  fc.oneof({ weight: 14, arbitrary: message }, { weight: 3, arbitrary: batch }, { weight: 3, arbitrary: oddMcpBody(message) });
