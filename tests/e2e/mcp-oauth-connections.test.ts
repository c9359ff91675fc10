import { Writable } from 'node:stream';
import request from 'supertest';
import { McpConnectionStore } from '../../src/application/ports/mcp-connection-store.port';
import { TOKENS } from '../../src/infrastructure/di/tokens';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { call, makeKey, rpc, TestKey } from '../support/mcp-keys';
import { OAuthAuthorizationServer } from '../support/oauth-authorization-server';
import { oauthClient } from '../support/oauth-client-fixture';
import { OAuthUpstream, startOAuthUpstream } from '../support/oauth-upstream';
import { tablesContaining } from '../support/plaintext-scan';
import { startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

/**
 * oauth servers end to end (issue 27, increment 3): a user connects through
 * the upstream's own authorization server (oidc-provider: discovery, dynamic
 * registration, PKCE, resource indicator), the callback stores the tokens,
 * and the user's calls carry their own access token, which the upstream (SDK
 * v2) verifies for its audience. No token in any answer, log line, audit
 * event or table.
 */
const BASE = '/api/v1/mcp-servers';
const CALLBACK = `${BASE}/connections/callback`;
const logLines: string[] = [];
const answers: string[] = [];

let t: TestApp;
let as: OAuthAuthorizationServer;
let upstream: OAuthUpstream;
let alice: TestKey;
let bob: TestKey;
beforeAll(async () => {
  as = await new OAuthAuthorizationServer().start({ resourceScopes: 'mcp:tools' });
  upstream = await startOAuthUpstream(as);
  t = await startTestApp(
    { MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '5000', PUBLIC_URL: 'http://keygate.test' },
    undefined,
    {
      logger: createLogger('trace', new Writable({ write: (chunk, _enc, done) => (logLines.push(chunk.toString()), done()) })),
    },
  );
  [alice, bob] = [await makeKey(t), await makeKey(t)];
});
afterAll(async () => {
  await t?.close();
  await upstream?.stop();
  await as?.stop();
});

const asUser = (key: TestKey) => `Bearer ${t.userToken(key.user)}`;
async function register(key: TestKey, name: string): Promise<string> {
  const res = await request(t.app)
    .post(BASE)
    .set('Authorization', asUser(key))
    .send({ name, url: upstream.url, auth: { type: 'oauth' } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
const begun: URL[] = [];
/** POST .../connection: the authorization URL. */
async function begin(key: TestKey, id: string): Promise<URL> {
  const res = await request(t.app).post(`${BASE}/${id}/connection`).set('Authorization', asUser(key)).send({});
  answers.push(res.text);
  expect(res.status).toBe(201);
  expect(Object.keys(res.body)).toEqual(['authorization_url']);
  begun.push(new URL(res.body.authorization_url as string));
  return begun[begun.length - 1];
}
/** The user logs in at the authorization server as `account` and consents: the query keygate's callback gets. */
/** Every authorization code and state the callbacks carried: bearer values too. */
const codes: string[] = [];
async function authorize(url: URL, account: string): Promise<Record<string, string>> {
  const back = await as.authorize(url.href, url.searchParams.get('redirect_uri')!, { account });
  expect(back.error).toBeNull();
  codes.push(back.code!, back.state!);
  return { code: back.code!, state: back.state!, ...(back.iss ? { iss: back.iss } : {}) };
}
/** What the console's callback page does: hands the query over as its signed-in user. */
const complete = (key: TestKey, query: object) => request(t.app).post(CALLBACK).set('Authorization', asUser(key)).send(query);
async function connect(key: TestKey, id: string, account: string): Promise<void> {
  const res = await complete(key, await authorize(await begin(key, id), account));
  answers.push(res.text);
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ server_id: id, auth_type: 'oauth', state: 'connected' });
}
async function whoami(key: TestKey, name: string): Promise<{ isError?: boolean; content: { text: string }[] }> {
  const res = await rpc(t, key, call(1, `${name}__whoami`)).expect(200);
  answers.push(res.text);
  return res.body.result;
}
const auditOf = async (action: string) =>
  t.db.dataSource.query<Record<string, unknown>[]>('SELECT * FROM audit_events WHERE action = $1', [action]);

describe('an oauth server on /mcp', () => {
  let aliceServer: string;

  it("POST .../connection answers the authorization URL: PKCE S256, the resource indicator, and the console's callback page under PUBLIC_URL as redirect URI, whatever Host the request named", async () => {
    aliceServer = await register(alice, 'linear');
    const url = await begin(alice, aliceServer);
    expect(url.origin).toBe(new URL(as.issuer).origin);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(upstream.url);
    expect(url.searchParams.get('redirect_uri')).toBe('http://keygate.test/console/connections/callback');
    const spoofed = await request(t.app)
      .post(`${BASE}/${aliceServer}/connection`)
      .set('Authorization', asUser(alice))
      .set('Host', 'attacker.example')
      .set('X-Forwarded-Host', 'attacker.example')
      .send({})
      .expect(201);
    expect(new URL(spoofed.body.authorization_url as string).searchParams.get('redirect_uri')).toBe(
      'http://keygate.test/console/connections/callback',
    );
  });

  it("user A connects and calls a tool: the upstream sees A's subject, and the connection shows connected", async () => {
    const before = await auditOf('mcp_connection.created');
    await connect(alice, aliceServer, 'alice-at-linear');
    expect((await whoami(alice, 'linear')).content[0].text).toBe('you are alice-at-linear');
    expect(upstream.subjects).toContain('alice-at-linear');
    const state = await request(t.app).get(`${BASE}/${aliceServer}/connection`).set('Authorization', asUser(alice)).expect(200);
    answers.push(state.text);
    expect(state.body).toMatchObject({
      auth_type: 'oauth',
      kind: 'oauth',
      state: 'connected',
      scopes: expect.any(Array),
      account: 'alice-at-linear',
    });
    expect((await auditOf('mcp_connection.created')).length).toBe(before.length + 1);
  });

  it('user B without a connection gets the connect page and sends nothing; after connecting, B is B upstream', async () => {
    const bobServer = await register(bob, 'linear');
    const seen = upstream.tokens.length;
    const result = await whoami(bob, 'linear');
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe(
      `The MCP server linear needs your own credential: connect to it at http://keygate.test/console/#/servers/${bobServer}/connect, then call again`,
    );
    expect(upstream.tokens.length).toBe(seen);
    await connect(bob, bobServer, 'bob-at-linear');
    expect((await whoami(bob, 'linear')).content[0].text).toBe('you are bob-at-linear');
    expect((await whoami(alice, 'linear')).content[0].text).toBe('you are alice-at-linear');
  });

  it("an authorization someone else began is refused: Bob's browser finishing Alice's link connects nobody", async () => {
    // Alice (the attacker here) begins a connection and gets Bob to open her link and consent upstream as himself.
    const query = await authorize(await begin(alice, aliceServer), 'bob-at-linear');
    const before = await t.db.dataSource.query('SELECT user_id, updated_at FROM mcp_connections ORDER BY user_id');
    const hijack = await complete(bob, query);
    answers.push(hijack.text);
    expect(hijack.status).toBe(400);
    expect(hijack.body.errors).toEqual([{ field: 'state', message: expect.stringContaining('someone else started') }]);
    expect(await t.db.dataSource.query('SELECT user_id, updated_at FROM mcp_connections ORDER BY user_id')).toEqual(before);
    expect((await whoami(alice, 'linear')).content[0].text).toBe('you are alice-at-linear');
    // The code only ever reached Bob's browser, and the attempt stays Alice's alone: no GET route takes a callback without a user.
    expect((await request(t.app).get(CALLBACK).set('Authorization', asUser(alice)).query(query)).status).toBe(404);
  });

  it('a bad, replayed or missing state is a 400 that stores nothing', async () => {
    const query = await authorize(await begin(alice, aliceServer), 'mallory');
    const count = async () => (await t.db.dataSource.query('SELECT count(*)::int AS n FROM mcp_connections'))[0].n as number;
    const before = await count();
    const refusals = [];
    for (const bad of [{ ...query, state: 'not-a-state' }, { code: query.code }, { ...query, state: 'x'.repeat(513) }]) {
      const res = await complete(alice, bad);
      answers.push(res.text);
      expect(res.status).toBe(400);
      refusals.push(res.body.errors);
    }
    expect(refusals).toEqual([
      [{ field: 'state', message: expect.stringMatching(/^is unknown, expired/) }],
      [{ field: 'state', message: 'is required: the state the authorization server sent back' }],
      [{ field: 'state', message: 'is at most 512 characters' }],
    ]);
    expect((await complete(alice, query)).status).toBe(201);
    const replayed = await complete(alice, query);
    answers.push(replayed.text);
    expect(replayed.status).toBe(400);
    expect(replayed.text).not.toContain(query.code);
    expect(await count()).toBe(before);
    // The attempt the good callback completed connected Alice again, as mallory: her own choice at the authorization server.
    expect((await whoami(alice, 'linear')).content[0].text).toBe('you are mallory');
  });

  it('DELETE .../connection revokes the grant at the authorization server, then forgets it: the call names the connect page again', async () => {
    const stored = t.container.get<McpConnectionStore>(TOKENS.McpConnectionStore);
    const { grant } = (await stored.openGrant(alice.user, aliceServer))!;
    const res = await request(t.app).delete(`${BASE}/${aliceServer}/connection`).set('Authorization', asUser(alice));
    expect(res.status).toBe(204);
    const refused = await oauthClient()
      .refresh({
        authorizationServer: grant.authorizationServer,
        client: grant.client,
        refreshToken: grant.tokens.refreshToken!,
        resource: grant.resource,
      })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'grant_refused', oauthError: 'invalid_grant' });
    const result = await whoami(alice, 'linear');
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/connect to it at/);
    expect(await stored.find(alice.user, aliceServer)).toBeNull();
  });

  it('registered keygate at the authorization server once: every user and every attempt used the same client, kept sealed', async () => {
    expect(begun.length).toBeGreaterThan(3);
    expect(new Set(begun.map((url) => url.searchParams.get('client_id'))).size).toBe(1);
    const rows = await t.db.dataSource.query<{ issuer: string; client_id: string; sealed_registration: string }[]>(
      'SELECT issuer, client_id, sealed_registration FROM mcp_client_registrations',
    );
    expect(rows).toEqual([
      { issuer: as.issuer, client_id: begun[0].searchParams.get('client_id'), sealed_registration: expect.any(String) },
    ]);
    expect(rows[0].sealed_registration).not.toContain(rows[0].client_id);
  });

  it('no token, authorization code or state is in any answer, log line, audit event or table', async () => {
    const tokens = [...new Set(upstream.tokens)];
    expect(tokens.length).toBeGreaterThan(1);
    expect(codes.length).toBeGreaterThan(4);
    for (const token of [...tokens, ...codes]) {
      // A state is in the authorization URL answered to its user, by design; codes and tokens never.
      if (!begun.some((url) => url.searchParams.get('state') === token)) expect(answers.join('\n')).not.toContain(token);
      expect(logLines.join('\n')).not.toContain(token);
      expect(await tablesContaining(t.db.dataSource, token)).toEqual([]);
    }
  });
});
