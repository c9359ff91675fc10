import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import request from 'supertest';
import { auditRequest } from '../../support/fuzz/audit-requests';
import { restCredentials } from '../../support/fuzz/credentials';
import { FuzzApp, startFuzzApp } from '../../support/fuzz/fuzz-app';
import { check } from '../../support/fuzz/contract';
import { FuzzRequest } from '../../support/fuzz/fuzz-request';
import { fuzz } from '../../support/fuzz/fuzz-runner';
import { EVERYTHING, RestFixture, restRequest, restRoutes } from '../../support/fuzz/rest-requests';

/**
 * Every /api/v1 route with generated paths, queries, headers, credentials and
 * bodies. Each answer: below 500, at most 64 KiB (audit-events: at most the
 * stored trail, see answer-bounds.ts), and when 4xx, not a row written
 * (api_keys.last_used_at aside, see db-snapshot.ts).
 */
jest.setTimeout(60_000);

let app: FuzzApp;
let fx: RestFixture;
let cursors: string[] = [];

beforeAll(async () => {
  app = await startFuzzApp();
  const { t } = app;
  const users = { admin: randomUUID(), a: randomUUID(), b: randomUUID() };
  const as = (sub: string, admin = false) => {
    const auth = `Bearer ${admin ? t.adminToken(sub) : t.userToken(sub)}`;
    return {
      get: (path: string) => request(t.app).get(path).set('Authorization', auth),
      post: (path: string, body: object) => request(t.app).post(path).set('Authorization', auth).send(body),
    };
  };
  const key = (sub: string, scopes: string[]) => as(sub).post('/api/v1/api-keys', { name: 'fixture', scopes }).expect(201);
  const keys = await Promise.all([key(users.a, []), key(users.a, ['projects:read']), key(users.a, ['agents:write']), key(users.b, [])]);
  const admin = as(users.admin, true);
  const system = (await admin.get('/api/v1/agent-roles').expect(200)).body.map((r: { id: string }) => r.id);
  const roles = [
    (await admin.post('/api/v1/agent-roles', { name: 'fixture-role', platform_scopes: ['projects:read'] }).expect(201)).body.id,
    (await admin.post('/api/v1/agent-roles', { name: 'fixture-full', platform_scopes: [] }).expect(201)).body.id,
  ];
  const modes = [
    (await admin.post('/api/v1/mode-tool-configs', { mode: 'build', additional_scopes: ['projects:write'] }).expect(201)).body.id,
    (await admin.post('/api/v1/mode-tool-configs', { mode: 'review', additional_scopes: ['chat:read'] }).expect(201)).body.id,
  ];
  const session = (sub: string, role: string, mode: string) =>
    as(sub).post('/api/v1/mode-sessions', { agent_role_id: role, mode }).expect(201);
  const sessions = await Promise.all([
    session(users.a, roles[0], 'build'),
    session(users.a, system[0], 'review'),
    session(users.b, roles[1], 'build'),
  ]);
  // A name that does not resolve passes the address check (the connection checks again): one server per auth the connection routes tell apart.
  const server = async (name: string, auth: object) =>
    (await as(users.a).post('/api/v1/mcp-servers', { name, url: 'https://upstream.invalid/mcp', auth }).expect(201)).body.id as string;
  const servers = [
    await server('personal', { type: 'user_secret', header: 'Authorization', prefix: 'Bearer ' }),
    await server('shared', { type: 'static' }),
  ];
  fx = {
    credentials: restCredentials(t.idp, users, keys[0].body.raw_key),
    serverIds: servers,
    userIds: Object.values(users),
    keyIds: keys.map((k) => k.body.id),
    roleIds: [...system, ...roles],
    modeIds: modes,
    modeNames: ['build', 'review', 'Build', 'build '],
    sessionIds: sessions.map((s) => s.body.id),
  };
  const firstPage = await admin.get('/api/v1/audit-events?limit=2').expect(200);
  cursors = [firstPage.body.next_cursor as string];
});
afterAll(() => app?.close());

const RUNS = { numRuns: 150, timeLimitMs: 2_000 };
const contract = (req: FuzzRequest) => check(app, req);

/**
 * Properties vary one part of the request at a time (a failure then points at
 * that part), then everything at once.
 */
describe('fuzzing the REST API: no 5xx, no answer over 64 KiB, no row written by a 4xx', () => {
  const all = () => Object.values(restRoutes(fx)).flat();

  it('paths and queries of every route', async () => {
    await fuzz('REST paths', app.baseUrl, restRequest(fx, all(), { paths: true, headers: false, bodies: false }), contract, RUNS);
  });

  it('credentials and headers on every route', async () => {
    await fuzz('REST headers', app.baseUrl, restRequest(fx, all(), { paths: false, headers: true, bodies: false }), contract, RUNS);
  });

  for (const family of [
    'api-keys',
    'agent-roles',
    'mode-tool-configs',
    'mode-sessions and tool-sets',
    'mcp-server connections',
    'tool-rules',
    'explain',
  ]) {
    it(`bodies of the ${family} routes`, async () => {
      const routes = restRoutes(fx)[family].filter((r) => r.body);
      await fuzz(
        `REST bodies ${family}`,
        app.baseUrl,
        restRequest(fx, routes, { paths: false, headers: false, bodies: true }),
        contract,
        RUNS,
      );
    });
  }

  it('everything at once, unknown routes and methods included', async () => {
    await fuzz('REST everything', app.baseUrl, restRequest(fx, all(), EVERYTHING), contract, RUNS);
  });

  // Its answers are the caller's stored events, so their bound is the trail's size, not 64 KiB (answer-bounds.ts).
  it('GET /api/v1/audit-events: its query parameters, as JSON pages and as the NDJSON export', async () => {
    const audit = { credentials: fx.credentials, userIds: fx.userIds, keyIds: fx.keyIds, cursors };
    await fuzz('REST audit-events', app.baseUrl, auditRequest(audit), contract, RUNS);
    await fuzz('REST audit-events credentials', app.baseUrl, auditRequest(audit, { credentials: true }), contract, {
      ...RUNS,
      numRuns: 60,
    });
  });

  // Last: it leaves the lists full, which would make every later GET of them fail for that alone.
  // A list is the caller's own stored records, not an answer amplified from a request, so the 64 KiB rule
  // does not apply: it is bounded by its count limit (MAX_KEYS_PER_USER) times the largest element, held here to 8 KiB.
  it('lists filled as far as the limits allow: 100 keys with 255-character names, roles with 2,000-character descriptions', async () => {
    // Characters JSON writes as six bytes (\u0001, refused in labels), three (CJK) or four (an emoji), so each item is as large as it can be.
    const fill = fc.record({
      list: fc.constantFrom('api-keys', 'agent-roles', 'mode-tool-configs'),
      char: fc.constantFrom('\u0001', '\u{1F600}', '\u4e00', '"'),
    });
    const admin = fx.credentials.find((c) => c.label === 'admin JWT')!.headers;
    await fuzz(
      'REST full lists',
      app.baseUrl,
      fill,
      async ({ list, char }) => {
        const owner = { Authorization: `Bearer ${app.t.userToken()}` };
        // As many whole characters as fit in `max` UTF-16 units (the unit the limits count), then the suffix.
        const fit = (max: number, suffix = '') => char.repeat(Math.floor((max - suffix.length) / char.length)) + suffix;
        const item = (i: number) =>
          list === 'api-keys'
            ? { name: fit(255, String(i)) }
            : list === 'agent-roles'
              ? { name: `full-${randomUUID()}`, description: fit(2000) }
              : { mode: fit(64, randomUUID()), additional_scopes: ['chat:read'] };
        for (let i = 0; i < (list === 'agent-roles' ? 12 : 100); i += 1) {
          const created = await request(app.t.app)
            .post(`/api/v1/${list}`)
            .set(list === 'api-keys' ? owner : admin)
            .send(item(i));
          expect(created.status).toBeLessThan(500);
        }
        const listed = await request(app.t.app)
          .get(`/api/v1/${list}`)
          .set(list === 'api-keys' ? owner : admin)
          .expect(200);
        for (const element of listed.body as unknown[]) expect(Buffer.byteLength(JSON.stringify(element))).toBeLessThanOrEqual(8 * 1024);
      },
      { numRuns: 3, timeLimitMs: 5_000 },
    );
  });
});
