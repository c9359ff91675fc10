import fc from 'fast-check';
import { Exchange, parsed, rpcMessages } from './contract';
import { FuzzRequest, makeRequest } from './fuzz-request';
import { headerSafe } from './http-variants';
import { JsonText, nastyString, nastyValue, objectText, text } from './json-text';
import { McpFixture } from './mcp-messages';
import { GOOD_KEYS } from './mcp-requests';

export const MODERN = '2026-07-28';
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** What 2026-07-28 serves, then what it removed or never had. */
const SERVED = [
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
];
const REFUSED = [
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'subscriptions/listen',
  'notifications/initialized',
  'notifications/cancelled',
  'tasks/get',
  'nope',
];
const NAMED: Readonly<Record<string, 'name' | 'uri'>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

export interface Mcp2026Fixture extends McpFixture {
  /** The name of an upstream MCP server registered by the keys' user. */
  server: string;
}

/** An id: readable ones mostly (the contract checks they come back), then ones no answer can carry. */
const rpcId = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: -1000, max: 1_000_000 }).map(String) },
  { weight: 3, arbitrary: nastyString(16).map(text) },
  { weight: 1, arbitrary: fc.constantFrom('null', '1.5', 'true', '{}', '[]') },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** `_meta`: a valid envelope mostly, else a field missing, ill-typed or naming a revision keygate does not serve. */
const meta: fc.Arbitrary<JsonText | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(`{"${VERSION_KEY}":"${MODERN}","${CAPABILITIES_KEY}":{}}`) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('{"roots":{}}', '{"elicitation":{}}', '{"sampling":{},"extensions":{"x":1}}')
      .map(
        (c) =>
          `{"${VERSION_KEY}":"${MODERN}","${CAPABILITIES_KEY}":${c},"io.modelcontextprotocol/clientInfo":{"name":"fuzz","version":"1"},"io.modelcontextprotocol/logLevel":"debug"}`,
      ),
  },
  { weight: 1, arbitrary: fc.constant(`{"${VERSION_KEY}":"${MODERN}"}`) },
  { weight: 1, arbitrary: fc.constant(`{"${CAPABILITIES_KEY}":{}}`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(nastyValue, fc.boolean())
      .map(([v, which]) =>
        which ? `{"${VERSION_KEY}":${v},"${CAPABILITIES_KEY}":{}}` : `{"${VERSION_KEY}":"${MODERN}","${CAPABILITIES_KEY}":${v}}`,
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('2025-11-25', '2026-07-29', '2027-01-01', '', '2026-07-28 ', 'latest')
      .map((v) => `{"${VERSION_KEY}":${text(v)},"${CAPABILITIES_KEY}":{}}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('io.modelcontextprotocol/clientInfo', 'io.modelcontextprotocol/logLevel', 'progressToken', '__proto__'),
        nastyValue,
      )
      .map(([k, v]) => `{"${VERSION_KEY}":"${MODERN}","${CAPABILITIES_KEY}":{},${text(k)}:${v}}`),
  },
  { weight: 1, arbitrary: fc.oneof(nastyValue, fc.constant(undefined)) },
);

/** Params of one method, with the nasty values the 2025 messages get; `args` is mcpMessages' tools/call arguments. */
function paramsOf(method: string, fx: Mcp2026Fixture, args: fc.Arbitrary<JsonText>): fc.Arbitrary<[string, JsonText][]> {
  const s = fx.server;
  const sometimesNasty = (good: fc.Arbitrary<JsonText>) => fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: nastyValue });
  const cursor = fc
    .option(sometimesNasty(fc.constant('"abc"')), { freq: 4, nil: undefined })
    .map((c): [string, JsonText][] => (c === undefined ? [] : [['cursor', c]]));
  switch (method) {
    case 'tools/call':
      return fc
        .tuple(
          sometimesNasty(fc.constantFrom('projects', 'agents', 'echo', 'secret', `${s}__echo`, `${s}__secret`, 'ünïcode').map(text)),
          args,
        )
        .map(([n, a]) => [
          ['name', n],
          ['arguments', a],
        ]);
    case 'resources/read':
      return sometimesNasty(
        fc
          .constantFrom(
            'file:///notes/a.txt',
            'file:///secret/s.txt',
            `keygate://${s}/file:///notes/a.txt`,
            'keygate://nope/x',
            'file:///notes/ü.txt',
            '',
          )
          .map(text),
      ).map((u) => [['uri', u]]);
    case 'prompts/get':
      return fc
        .tuple(
          sometimesNasty(fc.constantFrom('greet', 'vault', `${s}__greet`, 'nope').map(text)),
          sometimesNasty(fc.constant('{"who":"x"}')),
        )
        .map(([n, a]) => [
          ['name', n],
          ['arguments', a],
        ]);
    case 'completion/complete':
      return fc
        .tuple(
          sometimesNasty(
            fc.constantFrom(
              `{"type":"ref/prompt","name":"greet"}`,
              `{"type":"ref/prompt","name":"${s}__greet"}`,
              '{"type":"ref/resource","uri":"file:///notes/{name}"}',
              '{"type":"ref/x"}',
            ),
          ),
          sometimesNasty(fc.constant('{"name":"who","value":"x"}')),
        )
        .map(([r, a]) => [
          ['ref', r],
          ['argument', a],
        ]);
    default:
      return cursor;
  }
}

/** 2026's multi-round members, of the types the spec gives them or not. */
const roundMembers = fc.oneof(
  { weight: 8, arbitrary: fc.constant<[string, JsonText][]>([]) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('inputResponses', 'requestState'),
        fc.oneof(nastyValue, fc.constantFrom('{}', '"state"', '{"a":{"action":"accept"}}')),
      )
      .map(([k, v]): [string, JsonText][] => [[k, v]]),
  },
);

const UNKNOWN_SERVER = '/mcp/servers/nope';

type HeaderCase = 'match' | 'mismatch' | 'missing' | 'base64' | 'bad-base64';
const headerCase = fc.oneof(
  { weight: 6, arbitrary: fc.constant<HeaderCase>('match') },
  { weight: 2, arbitrary: fc.constant<HeaderCase>('base64') },
  { weight: 1, arbitrary: fc.constantFrom<HeaderCase>('mismatch', 'missing', 'bad-base64') },
);
const BAD_BASE64 = ['=?base64?!!!?=', '=?base64?YQ?=', '=?base64?//79?=', '=?base64??=', '=?base64?YWJj', '=?BASE64?YWJj?='];

/** The standard headers for a body: each right, wrong, left out, or (Mcp-Name) base64 valid or not. */
function headersFor(method: string, version: unknown, name: unknown, which: HeaderCase, pick: number): Record<string, string | undefined> {
  const plainVersion = typeof version === 'string' ? version : MODERN;
  const plainName = typeof name === 'string' ? name : undefined;
  const headers: Record<string, string | undefined> = { 'MCP-Protocol-Version': plainVersion, 'Mcp-Method': method, 'Mcp-Name': plainName };
  const nonAscii = plainName !== undefined && /[^\x20-\x7e]/.test(plainName);
  if (nonAscii || which === 'base64')
    headers['Mcp-Name'] = plainName === undefined ? undefined : `=?base64?${Buffer.from(plainName, 'utf8').toString('base64')}?=`;
  const target = (['MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name'] as const)[pick % 3];
  if (which === 'missing') headers[target] = undefined;
  if (which === 'mismatch')
    headers[target] = {
      'MCP-Protocol-Version': ['2025-11-25', '2026-07-29', 'x'][pick % 3],
      'Mcp-Method': ['tools/list', 'TOOLS/CALL', 'ping'][pick % 3],
      'Mcp-Name': ['other', 'echo ', 'projects'][pick % 3],
    }[target];
  if (which === 'bad-base64') headers['Mcp-Name'] = BAD_BASE64[pick % BAD_BASE64.length];
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v === undefined ? undefined : headerSafe(v)]));
}

/** The value at `key` of a JSON object text, undefined when it is not one. */
function member(json: JsonText | undefined, key: string): unknown {
  try {
    return field(json === undefined ? undefined : JSON.parse(json), key);
  } catch {
    return undefined;
  }
}
const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;

/**
 * A 2026-07-28 stateless request to /mcp or /mcp/servers/<server>: any method
 * it serves or refuses, generated params, an envelope valid or not, and the
 * standard headers matching the body, mismatching, missing or badly encoded.
 */
export function mcp2026Request(fx: Mcp2026Fixture, args: fc.Arbitrary<JsonText>): fc.Arbitrary<FuzzRequest> {
  const good = fx.credentials.filter((c) => GOOD_KEYS.includes(c.label));
  const method = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...SERVED) }, { weight: 1, arbitrary: fc.constantFrom(...REFUSED) });
  return method
    .chain((m) =>
      fc.record({
        method: fc.constant(m),
        path: fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom('/mcp', `/mcp/servers/${fx.server}`) },
          { weight: 1, arbitrary: fc.constantFrom(UNKNOWN_SERVER) },
        ),
        credential: fc.constantFrom(...good),
        id: m.startsWith('notifications/') ? fc.constant(undefined) : rpcId,
        params: paramsOf(m, fx, args),
        rounds: roundMembers,
        meta,
        paramsShape: fc.oneof(
          { weight: 20, arbitrary: fc.constant<'object' | 'nasty'>('object') },
          { weight: 1, arbitrary: fc.constant<'object' | 'nasty'>('nasty') },
        ),
        nastyParams: nastyValue,
        headers: headerCase,
        pick: fc.nat(),
      }),
    )
    .map((r) => {
      const entries: [string, JsonText][] = [...r.params, ...r.rounds];
      if (r.meta !== undefined) entries.unshift(['_meta', r.meta]);
      const params = r.paramsShape === 'object' ? objectText(entries) : r.nastyParams;
      const body = objectText([
        ['jsonrpc', '"2.0"'],
        ...(r.id === undefined ? [] : [['id', r.id] as [string, JsonText]]),
        ['method', text(r.method)],
        ['params', params],
      ]);
      const source = NAMED[r.method];
      const name = source === undefined ? undefined : member(params, source);
      const headers = headersFor(r.method, field(member(params, '_meta'), VERSION_KEY), name, r.headers, r.pick);
      if (source === undefined) delete headers['Mcp-Name'];
      return makeRequest({
        method: 'POST',
        path: r.path,
        headers: { ...r.credential.headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        credential: r.credential.label,
        text: body,
      });
    });
}

/** The id an answer must echo: a string or safe integer, on an object with a string method. */
function readableId(request: FuzzRequest): string | number | undefined {
  const body = member(request.text, 'id');
  if (typeof member(request.text, 'method') !== 'string') return undefined;
  return typeof body === 'string' || (typeof body === 'number' && Number.isSafeInteger(body)) ? body : undefined;
}

/**
 * What 2026-07-28 adds to the contract: an HTTP 400 or 404 carries a
 * JSON-RPC error, and every error answer echoes the request's readable id.
 */
export function modernAnswerProblems({ request, response }: Exchange): string[] {
  const problems: string[] = [];
  const isJson = /^application\/json/.test(String(response.headers['content-type'] ?? ''));
  if (response.status === 400 || response.status === 404) {
    const body = isJson ? parsed(response) : undefined;
    const code = (body?.error as { code?: unknown } | undefined)?.code;
    if (typeof code !== 'number') problems.push(`a ${response.status} without a JSON-RPC error body`);
  }
  const id = readableId(request);
  if (id !== undefined) {
    for (const m of rpcMessages({ response })) {
      if (m?.error !== undefined && m.id !== id)
        problems.push(`error answer with id ${JSON.stringify(m.id)}, not the request's ${JSON.stringify(id)}`);
    }
  }
  return problems;
}
