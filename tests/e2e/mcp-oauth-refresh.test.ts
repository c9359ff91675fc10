import request from 'supertest';
import { McpConnectionStore } from '../../src/application/ports/mcp-connection-store.port';
import { TOKENS } from '../../src/infrastructure/di/tokens';
import { startTwoReplicas, TwoReplicas } from '../support/app-replicas';
import { call, makeKey, TestKey } from '../support/mcp-keys';
import { OAuthAuthorizationServer } from '../support/oauth-authorization-server';
import { oauthClient } from '../support/oauth-client-fixture';
import { OAuthUpstream, startOAuthUpstream } from '../support/oauth-upstream';
import { tablesContaining } from '../support/plaintext-scan';

jest.setTimeout(60_000);

/**
 * Refreshing oauth connections across replicas (issue 27, increment 3): the
 * stored token is made to expire within a minute (as if time had passed: its
 * grant stored again with an earlier expiry), so the next calls refresh it
 * first; concurrent calls on two replicas refresh once (oidc-provider rotates refresh tokens and refuses
 * a used one, so a second refresh would fail the connection). A refresh token
 * revoked at the authorization server leads back to the connect page.
 */
const BASE = '/api/v1/mcp-servers';
let replicas: TwoReplicas;
let as: OAuthAuthorizationServer;
let upstream: OAuthUpstream;
let alice: TestKey;
let serverId: string;
beforeAll(async () => {
  as = await new OAuthAuthorizationServer().start({ resourceScopes: 'mcp:tools', accessTokenTtl: 300 });
  upstream = await startOAuthUpstream(as);
  replicas = await startTwoReplicas({
    MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8',
    MCP_UPSTREAM_TIMEOUT_MS: '10000',
    PUBLIC_URL: 'http://keygate.test',
  });
  alice = await makeKey(replicas.a);
  const jwt = `Bearer ${replicas.a.userToken(alice.user)}`;
  const created = await request(replicas.a.app)
    .post(BASE)
    .set('Authorization', jwt)
    .send({ name: 'linear', url: upstream.url, auth: { type: 'oauth' } });
  serverId = created.body.id as string;
  const begun = await request(replicas.a.app).post(`${BASE}/${serverId}/connection`).set('Authorization', jwt).send({}).expect(201);
  const url = new URL(begun.body.authorization_url as string);
  const back = await as.authorize(url.href, url.searchParams.get('redirect_uri')!, { account: 'alice-at-linear' });
  // The callback lands on the other replica: the attempt is in PostgreSQL.
  await request(replicas.b.url)
    .post(`${BASE}/connections/callback`)
    .set('Authorization', jwt)
    .send({ code: back.code!, state: back.state!, ...(back.iss ? { iss: back.iss } : {}) })
    .expect(201);
});
afterAll(async () => {
  await replicas?.close();
  await upstream?.stop();
  await as?.stop();
});

const onReplica = (url: string, id: number) =>
  request(url)
    .post('/mcp')
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream')
    .set('Authorization', `Bearer ${alice.raw}`)
    .send(JSON.stringify(call(id, 'linear__whoami')));
/** The stored token as if it expired in 30 s: the next call refreshes it first. */
async function nearExpiry(): Promise<void> {
  const stored = replicas.a.container.get<McpConnectionStore>(TOKENS.McpConnectionStore);
  const { grant } = (await stored.openGrant(alice.user, serverId))!;
  await stored.saveGrant(alice.user, serverId, { ...grant, tokens: { ...grant.tokens, expiresAt: new Date(Date.now() + 30_000) } });
  // As if the set was stored five minutes ago: a token with 30 s left of a 30 s life is not yet due (half its lifetime).
  await replicas.a.db.dataSource.query(`UPDATE mcp_connections SET updated_at = now() - interval '5 minutes' WHERE server_id = $1`, [
    serverId,
  ]);
}
const audited = async (action: string) =>
  (await replicas.a.db.dataSource.query<{ n: number }[]>('SELECT count(*)::int AS n FROM audit_events WHERE action = $1', [action]))[0].n;

describe('an oauth connection near its expiry', () => {
  it('is refreshed once across two replicas under concurrent calls, and every call goes through with the new token', async () => {
    const stored = replicas.a.container.get<McpConnectionStore>(TOKENS.McpConnectionStore);
    await nearExpiry();
    const before = (await stored.openGrant(alice.user, serverId))!.grant.tokens;
    const seen = upstream.tokens.length;
    const answers = await Promise.all([1, 2, 3, 4, 5, 6].map((id) => onReplica(id % 2 ? replicas.aUrl : replicas.b.url, id)));
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.body.result.content[0].text).toBe('you are alice-at-linear');
    }
    const sent = new Set(upstream.tokens.slice(seen));
    expect(sent.size).toBe(1);
    expect(sent.has(before.accessToken)).toBe(false);
    const after = (await stored.openGrant(alice.user, serverId))!;
    expect(after.connection.state).toBe('connected');
    expect(after.grant.tokens.refreshToken).not.toBe(before.refreshToken);
    expect(await audited('mcp_connection.refreshed')).toBe(1);
    for (const token of [before.accessToken, before.refreshToken!, after.grant.tokens.refreshToken!, ...sent]) {
      expect(await tablesContaining(replicas.a.db.dataSource, token)).toEqual([]);
      for (const res of answers) expect(res.text).not.toContain(token);
    }
  });

  it('whose refresh token was revoked at the authorization server fails, and the call names the connect page again', async () => {
    const stored = replicas.a.container.get<McpConnectionStore>(TOKENS.McpConnectionStore);
    const { grant } = (await stored.openGrant(alice.user, serverId))!;
    // The user revokes keygate's access at the authorization server.
    await oauthClient().revoke({
      authorizationServer: grant.authorizationServer,
      client: grant.client,
      token: grant.tokens.refreshToken!,
      tokenTypeHint: 'refresh_token',
    });
    await nearExpiry();
    const seen = upstream.tokens.length;
    const res = await onReplica(replicas.b.url, 7).expect(200);
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toBe(
      `The MCP server linear needs your own credential: connect to it at http://keygate.test/console/#/servers/${serverId}/connect, then call again`,
    );
    expect(upstream.tokens.length).toBe(seen);
    expect((await stored.find(alice.user, serverId))?.state).toBe('failed');
    expect(await audited('mcp_connection.failed')).toBe(1);
    const state = await request(replicas.a.app)
      .get(`${BASE}/${serverId}/connection`)
      .set('Authorization', `Bearer ${replicas.a.userToken(alice.user)}`)
      .expect(200);
    expect(state.body.state).toBe('failed');
  });
});
