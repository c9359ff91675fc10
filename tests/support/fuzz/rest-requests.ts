import fc from 'fast-check';
import { accept, contentType, extraHeaders, pathId, queryString, REST_ACCEPTS, transport } from './http-variants';
import {
  deep,
  FieldSpec,
  JsonText,
  longString,
  malformedJson,
  nastyString,
  nastyValue,
  objectText,
  objectWith,
  oversize,
  text,
  Wildness,
} from './json-text';
import { FuzzRequest, makeRequest } from './fuzz-request';
import { SCOPES, scopeArray } from './scope-values';

export const MAX_REST_BODY_BYTES = 64 * 1024;

/** Credential headers by name, so reports say "admin JWT" rather than print one. */
export interface Credential {
  label: string;
  headers: Record<string, string>;
}

/** What exists in the database when fuzzing starts, so generated ids and names hit real rows too. */
export interface RestFixture {
  credentials: Credential[];
  userIds: string[];
  keyIds: string[];
  roleIds: string[];
  modeIds: string[];
  modeNames: string[];
  sessionIds: string[];
  /** MCP server records (a user_secret one first); fixtures without them fuzz the server routes with random ids. */
  serverIds?: string[];
}

type IdKind = 'key' | 'role' | 'mode' | 'session' | 'server';

export interface Route {
  method: string;
  /** `:id` is replaced by a generated segment. */
  path: string;
  id?: IdKind;
  /** Bodies of every kind: good, wrong, malformed, deep, oversize. */
  body?: fc.Arbitrary<JsonText>;
  /** A body the route accepts, for properties that vary something else. */
  valid?: fc.Arbitrary<JsonText>;
  /** How often the route is picked against the others (10 unless said). */
  weight?: number;
}

const DATES = [
  '2099-01-01T00:00:00Z',
  '2000-01-01T00:00:00Z',
  '2099-01-01',
  '2099-01-01T00:00:00',
  '2099-13-01T00:00:00Z',
  '2099-02-30T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '+275760-09-14T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999999Z',
  '2099-01-01T00:00:00+99:99',
  '2099-01-01T00:00:00.000+01:00',
  'now',
  '',
  '2099-W01-1T00:00:00Z',
  '20990101T000000Z',
  '2099-01-01T24:00:00Z',
];

/** A body for a route taking `fields`: mostly an object of them, else anything a client could send. */
export const restBody = (fields: Record<string, FieldSpec>, wild?: Wildness): fc.Arbitrary<JsonText> => {
  const object = objectWith(fields, wild);
  return fc.oneof(
    { weight: 14, arbitrary: object },
    { weight: 1, arbitrary: nastyValue },
    { weight: 2, arbitrary: malformedJson(object) },
    { weight: 1, arbitrary: deep(33, 10_000) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.boolean(), object).map(([proto, o]) => (proto ? `{"__proto__":${o}}` : `{"constructor":{"prototype":${o}}}`)),
    },
    { weight: 1, arbitrary: oversize(MAX_REST_BODY_BYTES) },
  );
};

/** The routes of app.ts, grouped as the properties fuzz them. */
export function restRoutes(fx: RestFixture): Record<string, Route[]> {
  const uuidOf = (pool: readonly string[]) =>
    fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pool).map(text) }, { weight: 1, arbitrary: fc.uuid().map(text) });
  const unique = (name: string) => fc.nat(999_999).map((i) => text(`${name}-${i}`));
  const label = (names: readonly string[]) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...names), fc.nat(99_999)).map(([n, i]) => text(`${n}-${i}`)) },
      { weight: 1, arbitrary: fc.constantFrom(...names).map(text) },
      { weight: 2, arbitrary: nastyString(30).map(text) },
      { weight: 1, arbitrary: longString(50, 400).map(text) },
    );
  const roleFields: Record<string, FieldSpec> = {
    name: [label(['researcher', 'Researcher', 'observer', 'OPERATOR', 'rôle']), 0.9],
    description: [fc.oneof(nastyString(60).map(text), longString(1990, 2100 * 6).map(text), fc.constant('null')), 0.4],
    platform_scopes: [scopeArray, 0.7],
  };
  const modeFields = { mode: [label(fx.modeNames), 0.9] as FieldSpec, additional_scopes: [scopeArray, 0.9] as FieldSpec };
  const validRole = fc
    .tuple(unique('role'), fc.subarray(SCOPES))
    .map(([name, scopes]) => `{"name":${name},"platform_scopes":${text(scopes)}}`);
  const validMode = fc
    .tuple(unique('mode'), fc.subarray(SCOPES, { minLength: 1 }))
    .map(([mode, scopes]) => `{"mode":${mode},"additional_scopes":${text(scopes)}}`);
  const fixtureRole = fc.constantFrom(...fx.roleIds).map(text);
  // Tool rules: conditions that compile, that do not (syntax, unknown variable, nesting, over 2 KiB), and any text.
  const condition = fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .constantFrom(
          'args.a == 1',
          'true',
          'key.name == "ci" && !user.admin',
          'args.l.exists(x, x > 2)',
          'now.getDayOfWeek() == 5',
          '1 / 0 == 1',
          'args.',
          'nobody == 1',
          'args.a.exists(x, args.b.exists(y, x == y))',
          '((((((((((((((((((((((((((((((((true))))))))))))))))))))))))))))))))',
        )
        .map(text),
    },
    { weight: 1, arbitrary: nastyString(60).map(text) },
    { weight: 1, arbitrary: longString(2049, 2400).map(text) },
  );
  const rule = objectWith({
    when: [condition, 0.9],
    effect: [fc.constantFrom('deny', 'require_approval', 'allow', '').map(text), 0.9],
    // Short or over the bound: a list of valid rules stays far below 64 KiB however many tools have one.
    message: [fc.oneof(nastyString(40).map(text), longString(501, 700).map(text)), 0.9],
    approvers: [fc.constantFrom('owner', 'admin', 'everyone').map(text), 0.2],
  });
  const ruleList = fc.oneof(
    { weight: 4, arbitrary: fc.array(rule, { maxLength: 4 }).map((rules) => `[${rules.join(',')}]`) },
    { weight: 1, arbitrary: fc.array(rule, { minLength: 19, maxLength: 22 }).map((rules) => `[${rules.join(',')}]`) },
  );
  const ruleMap = fc
    .array(fc.tuple(fc.oneof(fc.constantFrom('echo', 'read', '__proto__').map(String), nastyString(12)), ruleList), { maxLength: 3 })
    .map((entries) => objectText(entries));
  const validRules = `[{"when":"args.action == \\"delete\\"","effect":"deny","message":"no deletes"}]`;
  return {
    'api-keys': [
      { method: 'GET', path: '/api/v1/api-keys' },
      {
        method: 'POST',
        path: '/api/v1/api-keys',
        body: restBody({
          name: [label(['ci runner', 'key', 'ключ']), 0.9],
          scopes: [scopeArray, 0.7],
          expires_at: [fc.oneof(fc.constantFrom(...DATES).map(text), fc.constantFrom('0', '4102444800000', '1e20', '-1')), 0.3],
          user_id: [uuidOf(fx.userIds), 0.2],
        }),
        valid: fc.tuple(unique('key'), fc.subarray(SCOPES)).map(([name, scopes]) => `{"name":${name},"scopes":${text(scopes)}}`),
      },
      { method: 'DELETE', path: '/api/v1/api-keys/:id', id: 'key' },
    ],
    'agent-roles': [
      { method: 'GET', path: '/api/v1/agent-roles' },
      { method: 'GET', path: '/api/v1/agent-roles/:id', id: 'role' },
      { method: 'POST', path: '/api/v1/agent-roles', body: restBody(roleFields), valid: validRole },
      { method: 'PATCH', path: '/api/v1/agent-roles/:id', id: 'role', body: restBody(roleFields), valid: validRole },
      { method: 'DELETE', path: '/api/v1/agent-roles/:id', id: 'role' },
    ],
    'mode-tool-configs': [
      { method: 'GET', path: '/api/v1/mode-tool-configs' },
      { method: 'GET', path: '/api/v1/mode-tool-configs/:id', id: 'mode' },
      { method: 'POST', path: '/api/v1/mode-tool-configs', body: restBody(modeFields), valid: validMode },
      { method: 'PATCH', path: '/api/v1/mode-tool-configs/:id', id: 'mode', body: restBody(modeFields), valid: validMode },
      { method: 'DELETE', path: '/api/v1/mode-tool-configs/:id', id: 'mode' },
    ],
    'mode-sessions and tool-sets': [
      {
        method: 'POST',
        path: '/api/v1/mode-sessions',
        body: restBody({
          agent_role_id: [uuidOf(fx.roleIds), 0.9],
          mode: [fc.oneof(fc.constantFrom(...fx.modeNames).map(text), label(fx.modeNames)), 0.9],
        }),
        valid: fc
          .tuple(fixtureRole, fc.constantFrom(...fx.modeNames).map(text))
          .map(([role, mode]) => `{"agent_role_id":${role},"mode":${mode}}`),
      },
      { method: 'GET', path: '/api/v1/mode-sessions/:id', id: 'session' },
      { method: 'DELETE', path: '/api/v1/mode-sessions/:id', id: 'session' },
      {
        method: 'POST',
        path: '/api/v1/tool-sets',
        body: restBody({ agent_role_id: [uuidOf(fx.roleIds), 0.9], mode_session_id: [uuidOf(fx.sessionIds), 0.5] }),
        valid: fc
          .tuple(fixtureRole, fc.option(fc.constantFrom(...fx.sessionIds).map(text), { nil: undefined }))
          .map(([role, session]) => (session ? `{"agent_role_id":${role},"mode_session_id":${session}}` : `{"agent_role_id":${role}}`)),
      },
    ],
    'tool-rules': [
      { method: 'GET', path: '/api/v1/tool-rules' },
      ...['projects', 'agents', 'files__echo'].map((tool) => ({
        method: 'PUT',
        path: `/api/v1/tool-rules/${tool}`,
        body: restBody({ rules: [ruleList, 0.9] }),
        valid: fc.constant(`{"rules":${validRules}}`),
      })),
      { method: 'DELETE', path: '/api/v1/tool-rules/chat' },
      {
        method: 'POST',
        path: '/api/v1/mcp-servers',
        body: restBody({
          name: [unique('ruled'), 0.9],
          url: [fc.constant(text('https://upstream.invalid/mcp')), 0.95],
          tool_rules: [ruleMap, 0.9],
        }),
        valid: unique('ruled').map((name) => `{"name":${name},"url":"https://upstream.invalid/mcp","tool_rules":{"echo":${validRules}}}`),
      },
    ],
    explain: [
      {
        method: 'POST',
        path: '/api/v1/authz/explain',
        body: restBody({
          key_id: [uuidOf(fx.keyIds), 0.9],
          tool: [
            fc.oneof(
              fc.constantFrom('projects', 'chat', 'files__echo', 'nope', '__').map(text),
              nastyString(40).map(text),
              longString(500, 600).map(text),
            ),
            0.9,
          ],
          arguments: [fc.oneof(fc.constantFrom('{}', '{"action":"list"}', '{"action":"delete","id":1}', '[]', 'null'), nastyValue), 0.6],
        }),
        valid: fc
          .tuple(fc.constantFrom(...fx.keyIds), fc.constantFrom('projects', 'agents', 'files__echo', 'nope'))
          .map(([id, tool]) => `{"key_id":${text(id)},"tool":${text(tool)},"arguments":{"action":"list"}}`),
      },
      { method: 'GET', path: '/api/v1/api-keys/:id/tools', id: 'key' },
    ],
    // No approval exists in the fixture: ids of other rows and random ones, each a 404 (or a 400 for a malformed one).
    approvals: [
      { method: 'GET', path: '/api/v1/approvals' },
      { method: 'POST', path: '/api/v1/approvals/:id/approve', id: 'key' },
      { method: 'POST', path: '/api/v1/approvals/:id/deny', id: 'key' },
    ],
    'mcp-server connections': [
      { method: 'GET', path: '/api/v1/mcp-servers/:id/connection', id: 'server' },
      {
        method: 'POST',
        path: '/api/v1/mcp-servers/:id/connection',
        id: 'server',
        body: restBody({
          secret: [fc.oneof(unique('sk'), nastyString(40).map(text), longString(4090, 4200).map(text), fc.constant('null')), 0.9],
        }),
        valid: unique('sk').map((secret) => `{"secret":${secret}}`),
      },
      { method: 'DELETE', path: '/api/v1/mcp-servers/:id/connection', id: 'server' },
      // An oauth connection's callback, as the console hands it over: any state it is sent is unknown to it (400).
      {
        method: 'POST',
        path: '/api/v1/mcp-servers/connections/callback',
        body: restBody({
          state: [fc.oneof(unique('st'), nastyString(40).map(text), longString(500, 600).map(text), fc.constant('null')), 0.9],
          code: [fc.oneof(unique('c'), nastyString(40).map(text), longString(2040, 2100).map(text)), 0.5],
          iss: [nastyString(40).map(text), 0.2],
          error: [nastyString(20).map(text), 0.2],
        }),
      },
    ],
    // /metrics is left out: it is an operations endpoint outside /api, and its size grows with the series recorded.
    // So is /api/v1/audit-events, whose answers are bounded by the stored trail, not 64 KiB: audit-requests.ts fuzzes it.
    'scopes, unknown routes and other methods': [
      { method: 'GET', path: '/api/v1/scopes' },
      // Unknown routes and methods, picked rarely: each is one more way to get a 404 or 405.
      ...[
        ...['PUT', 'PATCH', 'POST', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'GET', 'DELETE'].flatMap((method) => [
          { method, path: '/api/v1/api-keys/:id', id: 'key' as const, body: restBody({ name: label(['k']) }) },
          { method, path: '/api/v1/scopes/:id', id: 'role' as const },
          { method, path: '/api/v1/:id', id: 'role' as const },
          { method, path: '/api/v1/tool-sets/:id', id: 'session' as const, body: restBody({ agent_role_id: uuidOf(fx.roleIds) }) },
        ]),
        { method: 'GET', path: '/api/v2/api-keys' },
        { method: 'GET', path: '/api/v1/api-keys/:id/extra', id: 'key' as const },
        { method: 'GET', path: '/API/V1/API-KEYS' },
        { method: 'GET', path: '//api/v1//api-keys' },
        { method: 'GET', path: '/api/v1/api-keys/../agent-roles' },
        { method: 'GET', path: '/api/v1/%2e%2e/api-keys' },
        { method: 'PUT', path: '/api/v1/agent-roles' },
        { method: 'GET', path: '/readyz' },
        { method: 'POST', path: '/healthz' },
      ].map((route) => ({ ...route, weight: 1 })),
    ],
  };
}

/** Which parts of a request are generated freely; the others stay ordinary so failures point at one part. */
export interface Dimensions {
  /** Odd :id segments and query strings (else fixture ids or random UUIDs, no query). */
  paths: boolean;
  /** Odd credentials, Content-Type, Accept, encodings and extra headers (else a good JWT and application/json). */
  headers: boolean;
  /** Bodies of every kind (else one the route accepts, or none). */
  bodies: boolean;
}

export const EVERYTHING: Dimensions = { paths: true, headers: true, bodies: true };

/** One request to one of `routes`, generated along `dims`. */
export function restRequest(fx: RestFixture, routes: Route[], dims: Dimensions = EVERYTHING): fc.Arbitrary<FuzzRequest> {
  const servers = fx.serverIds && fx.serverIds.length > 0 ? fx.serverIds : ['00000000-0000-4000-8000-000000000000'];
  const pools: Record<IdKind, string[]> = { key: fx.keyIds, role: fx.roleIds, mode: fx.modeIds, session: fx.sessionIds, server: servers };
  const queryValues = fc.oneof(fc.constantFrom(...fx.userIds), fc.uuid().map(String), fc.constantFrom('admin', '1', 'true', '[]', '%00'));
  const anyBody = restBody({ name: nastyString(10).map(text) });
  // Admins most of the time when credentials are not what is fuzzed: most bodies are of admin routes.
  const byLabel = (label: string) => fx.credentials.find((c) => c.label === label)!;
  const good = fc.oneof(
    { weight: 3, arbitrary: fc.constant(byLabel('admin JWT')) },
    fc.constant(byLabel('user A JWT')),
    fc.constant(byLabel('user B JWT')),
  );
  const ordinaryId = (kind: IdKind) =>
    fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pools[kind]) }, { weight: 1, arbitrary: fc.uuid().map(String) });
  const bodyFor = (route: Route): fc.Arbitrary<JsonText | undefined> => {
    if (!dims.bodies) return route.valid ?? fc.constant(undefined);
    // A body where none is expected now and then, and none where one is.
    return route.body ? fc.option(route.body, { freq: 20, nil: undefined }) : fc.option(anyBody, { freq: 8, nil: undefined });
  };
  return fc.oneof(
    ...routes.map((route) => ({
      weight: route.weight ?? 10,
      arbitrary: fc
        .record({
          id: route.id ? (dims.paths ? pathId(pools[route.id]) : ordinaryId(route.id)) : fc.constant(''),
          query: dims.paths ? queryString(queryValues) : fc.constant(''),
          credential: dims.headers ? fc.constantFrom(...fx.credentials) : good,
          contentType: dims.headers ? contentType : fc.constant('application/json'),
          accept: dims.headers ? accept(REST_ACCEPTS) : fc.constant(undefined),
          extra: dims.headers ? extraHeaders : fc.constant({}),
          text: bodyFor(route),
          transport: dims.headers ? transport : fc.constant('plain' as const),
          seed: fc.nat(),
        })
        .map((r) =>
          makeRequest({
            method: route.method,
            path: route.path.replace(':id', r.id) + r.query,
            headers: {
              ...r.credential.headers,
              'Content-Type': r.text === undefined ? undefined : r.contentType,
              Accept: r.accept,
              ...r.extra,
            },
            credential: r.credential.label,
            text: r.text,
            transport: r.transport,
            seed: r.seed,
          }),
        ),
    })),
  );
}
