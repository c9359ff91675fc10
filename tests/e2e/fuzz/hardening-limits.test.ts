import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import request from 'supertest';
import { mcpCredentials, restCredentials } from '../../support/fuzz/credentials';
import { FuzzApp, startFuzzApp } from '../../support/fuzz/fuzz-app';
import { check, checkRefused } from '../../support/fuzz/contract';
import { FuzzRequest, makeRequest } from '../../support/fuzz/fuzz-request';
import { fuzz } from '../../support/fuzz/fuzz-runner';
import { deep, hugeArray, JsonText, objectText, text } from '../../support/fuzz/json-text';
import { rpcErrorIs, rpcErrorIsNot, smallErrors, statusIs, statusIsNot, tainted, taintedValue } from '../../support/fuzz/limit-rules';
import { MCP_MAX_BODY_BYTES, McpFixture, mcpBody, mcpMessages } from '../../support/fuzz/mcp-messages';
import { mcpRequest } from '../../support/fuzz/mcp-requests';
import { EVERYTHING, MAX_REST_BODY_BYTES, RestFixture, restRequest, restRoutes } from '../../support/fuzz/rest-requests';
import { scopeLike } from '../../support/fuzz/scope-values';
import { call, makeKey, rpc, TestKey } from '../../support/mcp-keys';

/**
 * The limits the hardening issue adds, asserted on generated input: scope
 * arrays of at most 12, JSON at most 32 levels deep, no NUL or lone surrogate
 * in names, modes or MCP data, 64 KiB REST and 1 MiB /mcp bodies, and error
 * answers under 16 KiB with at most 20 `errors`. Every request is also held to
 * the general contract (no 5xx, at most 64 KiB, nothing written by a 4xx).
 */
jest.setTimeout(60_000);

let app: FuzzApp;
let admin: Record<string, string>;
let roleId: string;
let modeId: string;
let key: TestKey;
let project: string;
const user = randomUUID();

beforeAll(async () => {
  app = await startFuzzApp();
  const { t } = app;
  admin = { Authorization: `Bearer ${t.adminToken()}`, 'Content-Type': 'application/json' };
  roleId = (
    await request(t.app)
      .post('/api/v1/agent-roles')
      .set(admin)
      .send({ name: 'limits-role', platform_scopes: ['projects:read'] })
      .expect(201)
  ).body.id;
  modeId = (
    await request(t.app)
      .post('/api/v1/mode-tool-configs')
      .set(admin)
      .send({ mode: 'limits', additional_scopes: ['chat:read'] })
      .expect(201)
  ).body.id;
  key = await makeKey(t, [], user);
  project = (await rpc(t, key, call(1, 'projects', { action: 'create', data: { name: 'p' } })).expect(200)).body.result.structuredContent
    .record.id;
});
afterAll(() => app?.close());

const RUNS = { numRuns: 40, timeLimitMs: 1_500 };
const post = (path: string, body: JsonText, method = 'POST'): FuzzRequest =>
  makeRequest({ method, path, headers: { ...admin }, credential: 'admin JWT', text: body });
const mcp = (body: JsonText): FuzzRequest =>
  makeRequest({
    method: 'POST',
    path: '/mcp',
    headers: { Authorization: `Bearer ${key.raw}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    credential: 'full-access key',
    text: body,
  });
const create = (data: JsonText, tool = 'projects') =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tool}","arguments":{"action":"create","data":${data}}}}`;

/** Each scope array of the REST API, in a body that is otherwise fine. */
const scopeBodies = (scopes: fc.Arbitrary<JsonText>) =>
  fc.oneof(
    scopes.map((s) => post('/api/v1/api-keys', `{"name":"k","scopes":${s}}`)),
    scopes.map((s) => post('/api/v1/agent-roles', `{"name":"r-${randomUUID()}","platform_scopes":${s}}`)),
    scopes.map((s) => post(`/api/v1/agent-roles/${roleId}`, `{"platform_scopes":${s}}`, 'PATCH')),
    scopes.map((s) => post('/api/v1/mode-tool-configs', `{"mode":"m-${randomUUID()}","additional_scopes":${s}}`)),
    scopes.map((s) => post(`/api/v1/mode-tool-configs/${modeId}`, `{"additional_scopes":${s}}`, 'PATCH')),
  );

describe('REST limits', () => {
  it('a scope array over 12 items is refused with 400 and a short error', async () => {
    await fuzz(
      'limits REST scope arrays',
      app.baseUrl,
      scopeBodies(hugeArray(scopeLike, 13, 3000)),
      (req) => check(app, req, statusIs(400), smallErrors),
      RUNS,
    );
  });

  it('a body nested deeper than 32 levels is refused with 400', async () => {
    const bodies = fc
      .tuple(
        deep(33, 10_000),
        fc.constantFrom('name', 'scopes', 'description', 'platform_scopes', 'mode', 'additional_scopes', 'agent_role_id'),
        fc.constantFrom(
          '/api/v1/api-keys',
          '/api/v1/agent-roles',
          '/api/v1/mode-tool-configs',
          '/api/v1/mode-sessions',
          '/api/v1/tool-sets',
        ),
      )
      .map(([d, field, path]) => post(path, objectText([[field, d]])));
    // The deepest of these are also over 64 KiB, and refused for that first.
    const refused = (req: FuzzRequest) => statusIs((req.body?.length ?? 0) > MAX_REST_BODY_BYTES ? 413 : 400);
    await fuzz('limits REST depth', app.baseUrl, bodies, (req) => check(app, req, refused(req), smallErrors), RUNS);
  });

  it('a NUL or a lone surrogate in a name or mode is refused with 400', async () => {
    const bodies = fc.oneof(
      tainted(255).map((s) => post('/api/v1/api-keys', objectText([['name', text(s)]]))),
      tainted(100).map((s) => post('/api/v1/agent-roles', objectText([['name', text(s)]]))),
      tainted(100).map((s) => post(`/api/v1/agent-roles/${roleId}`, objectText([['name', text(s)]]), 'PATCH')),
      tainted(64).map((s) =>
        post(
          '/api/v1/mode-tool-configs',
          objectText([
            ['mode', text(s)],
            ['additional_scopes', '["chat:read"]'],
          ]),
        ),
      ),
      tainted(64).map((s) => post(`/api/v1/mode-tool-configs/${modeId}`, objectText([['mode', text(s)]]), 'PATCH')),
      tainted(64).map((s) =>
        post(
          '/api/v1/mode-sessions',
          objectText([
            ['agent_role_id', text(roleId)],
            ['mode', text(s)],
          ]),
        ),
      ),
    );
    await fuzz('limits REST NUL and surrogates', app.baseUrl, bodies, (req) => check(app, req, statusIs(400), smallErrors), RUNS);
  });

  it('a body over 64 KiB is 413, one of 64 KiB is not', async () => {
    const paths = ['/api/v1/api-keys', '/api/v1/agent-roles', '/api/v1/mode-tool-configs', '/api/v1/mode-sessions', '/api/v1/tool-sets'];
    const bodies = fc.tuple(fc.constantFrom(...paths), fc.integer({ min: -64, max: 4096 })).map(([path, extra]) => {
      const size = MAX_REST_BODY_BYTES + extra;
      return { size, req: post(path, `{"name":"${'x'.repeat(size - 11)}"}`) };
    });
    await fuzz(
      'limits REST body size',
      app.baseUrl,
      bodies,
      ({ size, req }) => check(app, req, size > MAX_REST_BODY_BYTES ? statusIs(413) : statusIsNot(413), smallErrors),
      RUNS,
    );
  });

  it('every error answer of the REST fuzz is under 16 KiB with at most 20 errors', async () => {
    const users = { admin: randomUUID(), a: user, b: randomUUID() };
    // A key of its own: the fuzz may revoke or roll it, and the /mcp limits below need theirs usable.
    const spare = await makeKey(app.t, [], user);
    const fx: RestFixture = {
      credentials: restCredentials(app.t.idp, users, spare.raw),
      userIds: Object.values(users),
      keyIds: [spare.id],
      roleIds: [roleId],
      modeIds: [modeId],
      modeNames: ['limits'],
      sessionIds: [randomUUID()],
    };
    const all = Object.values(restRoutes(fx)).flat();
    await fuzz('limits REST error answers', app.baseUrl, restRequest(fx, all, EVERYTHING), (req) => check(app, req, smallErrors), {
      numRuns: 100,
      timeLimitMs: 2_000,
    });
  });
});

describe('/mcp limits', () => {
  it('tools/call data nested deeper than 32 levels is refused with -32602, nothing written', async () => {
    const bodies = deep(33, 10_000).map((d) => mcp(create(`{"x":${d}}`)));
    await fuzz('limits MCP depth', app.baseUrl, bodies, (req) => checkRefused(app, req, rpcErrorIs(-32602), smallErrors), RUNS);
  });

  it('tools/call data 16 levels deep is not refused for its depth', async () => {
    await fuzz(
      'limits MCP moderate depth',
      app.baseUrl,
      fc.integer({ min: 1, max: 16 }).map((n) => mcp(create(`{"x":${'['.repeat(n)}1${']'.repeat(n)}}`))),
      (req) => check(app, req, rpcErrorIsNot(-32602)),
      { numRuns: 16, timeLimitMs: 2_000 },
    );
  });

  it('a NUL or lone surrogate in tools/call data is refused with -32602, nothing written', async () => {
    const update = (v: JsonText) =>
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"projects","arguments":{"action":"update","id":"${project}","data":{"note":${v}}}}}`;
    const bodies = fc.oneof(
      fc
        .tuple(taintedValue, fc.constantFrom('projects', 'agents', 'routines', 'chat'))
        .map(([v, tool]) => mcp(create(`{"name":"ok","extra":${v}}`, tool))),
      taintedValue.map((v) => mcp(update(v))),
    );
    await fuzz(
      'limits MCP NUL and surrogates',
      app.baseUrl,
      bodies,
      (req) => checkRefused(app, req, rpcErrorIs(-32602), smallErrors),
      RUNS,
    );
  });

  it('agent_scopes over 12 items is refused with -32602 and a short error', async () => {
    const bodies = hugeArray(scopeLike, 13, 3000).map((s) =>
      mcp(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"agent_scopes":${s}}}`),
    );
    await fuzz('limits MCP agent_scopes', app.baseUrl, bodies, (req) => check(app, req, rpcErrorIs(-32602), smallErrors), RUNS);
  });

  it('a body over 1 MiB is 413, one of 1 MiB is not', async () => {
    const bodies = fc.integer({ min: -256, max: 4096 }).map((extra) => {
      const size = MCP_MAX_BODY_BYTES + extra;
      const head = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"';
      return { size, req: mcp(`${head}${'x'.repeat(size - head.length - 4)}"}}}`) };
    });
    await fuzz(
      'limits MCP body size',
      app.baseUrl,
      bodies,
      ({ size, req }) => check(app, req, size > MCP_MAX_BODY_BYTES ? statusIs(413) : statusIsNot(413), smallErrors),
      { numRuns: 20, timeLimitMs: 2_000 },
    );
  });

  it('every error answer of the /mcp fuzz is under 16 KiB', async () => {
    const narrow = await makeKey(app.t, ['projects:read'], user);
    const fx: McpFixture = {
      credentials: mcpCredentials({ full: key.raw, narrow: narrow.raw, revoked: `svc_${'0'.repeat(64)}` }, app.t.userToken(user)),
      recordIds: [project],
    };
    const { any, batch } = mcpMessages(fx);
    await fuzz('limits MCP error answers', app.baseUrl, mcpRequest(fx, mcpBody(any, batch), true), (req) => check(app, req, smallErrors), {
      numRuns: 100,
      timeLimitMs: 2_000,
    });
  });
});
