import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import request from 'supertest';
import { AuthorizationServerMetadata } from '../../src/application/ports/upstream-authorization.port';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { call, makeKey, TestKey } from '../support/mcp-keys';
import { OAuthAuthorizationServer, TOKEN_EXCHANGE_GRANT } from '../support/oauth-authorization-server';
import { claimsOf, connect, oauthClient, REDIRECT_URI } from '../support/oauth-client-fixture';
import { OAuthUpstream, startOAuthUpstream } from '../support/oauth-upstream';
import { tablesContaining } from '../support/plaintext-scan';
import { startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

/**
 * token_exchange servers end to end (issue 27): /mcp takes OAuth access
 * tokens from a real authorization server (oidc-provider, with its RFC 8693
 * grant), and a caller who came with one reaches a token_exchange server
 * with a token exchanged for the upstream's audience, which the upstream (SDK
 * v2) verifies. A caller with a keygate key has no token to exchange: a tool
 * error, and nothing reaches the upstream. No token in any answer, log line,
 * audit event or table.
 */
const RESOURCE = 'https://keygate.test/mcp';
const KEYGATE_SCOPES = ['mcp_servers:read', 'mcp_servers:write'];
const CALLER_CLIENT = { clientId: 'mcp-client', clientSecret: 'mcp-client-secret' };
const EXCHANGER = { clientId: 'keygate-exchanger', clientSecret: `exchanger-${randomUUID()}` };
const logLines: string[] = [];
const answers: string[] = [];

let t: TestApp;
let as: OAuthAuthorizationServer;
let upstream: OAuthUpstream;
let key: TestKey;
let subjectToken: string;
beforeAll(async () => {
  as = await new OAuthAuthorizationServer().start({
    resourceScopes: KEYGATE_SCOPES.join(' '),
    clients: [
      {
        client_id: CALLER_CLIENT.clientId,
        client_secret: CALLER_CLIENT.clientSecret,
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
      {
        client_id: EXCHANGER.clientId,
        client_secret: EXCHANGER.clientSecret,
        redirect_uris: [],
        grant_types: [TOKEN_EXCHANGE_GRANT],
        response_types: [],
      },
    ],
  });
  upstream = await startOAuthUpstream(as);
  t = await startTestApp(
    {
      MCP_RESOURCE_URL: RESOURCE,
      MCP_AUTHORIZATION_SERVERS: as.issuer,
      MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8',
      MCP_UPSTREAM_TIMEOUT_MS: '5000',
    },
    undefined,
    { logger: createLogger('trace', new Writable({ write: (chunk, _enc, done) => (logLines.push(chunk.toString()), done()) })) },
  );
  // /mcp checks access tokens against JWT_JWKS_URI: it publishes the authorization server's keys too.
  t.idp.publish(as.jwks.keys);
  key = await makeKey(t);
  subjectToken = await accessTokenFor(key.user);
});
afterAll(async () => {
  await t?.close();
  await upstream?.stop();
  await as?.stop();
});

/** The user logs in at the authorization server through another client (their MCP client): an access token for keygate's /mcp. */
async function accessTokenFor(user: string): Promise<string> {
  const authorizationServer: AuthorizationServerMetadata = {
    issuer: as.issuer,
    authorizationEndpoint: `${as.issuer}/auth`,
    tokenEndpoint: `${as.issuer}/token`,
    clientIdMetadataDocumentSupported: false,
    issParameterSupported: false,
  };
  const client = oauthClient();
  const pending = client.begin({
    discovered: {
      resource: RESOURCE,
      protectedResource: { resource: RESOURCE, authorizationServers: [as.issuer] },
      authorizationServer,
      scopes: KEYGATE_SCOPES,
    },
    client: { issuer: as.issuer, ...CALLER_CLIENT, tokenEndpointAuth: 'client_secret_basic', source: 'given' },
    redirectUri: REDIRECT_URI,
  });
  const tokens = await connect(client, as, pending, user);
  expect(claimsOf(tokens.accessToken)).toMatchObject({ sub: user, aud: RESOURCE, iss: as.issuer });
  return tokens.accessToken;
}

async function register(name: string, clientSecret = EXCHANGER.clientSecret): Promise<string> {
  const auth = {
    type: 'token_exchange',
    token_endpoint: `${as.issuer}/token`,
    audience: upstream.url,
    client_id: EXCHANGER.clientId,
    client_secret: clientSecret,
  };
  const res = await request(t.app)
    .post('/api/v1/mcp-servers')
    .set('Authorization', `Bearer ${t.userToken(key.user)}`)
    .send({ name, url: upstream.url, auth });
  answers.push(res.text);
  expect(res.status).toBe(201);
  return res.body.id as string;
}
/** One JSON-RPC POST to /mcp with `Authorization: Bearer <credential>` (an access token or a key). */
async function mcp(credential: string, body: unknown) {
  const res = await request(t.app)
    .post('/mcp')
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream')
    .set('Authorization', `Bearer ${credential}`)
    .send(JSON.stringify(body))
    .expect(200);
  answers.push(res.text);
  return res.body;
}
const toolNames = async (credential: string) =>
  ((await mcp(credential, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).result.tools as { name: string }[]).map((tool) => tool.name);

describe('a token_exchange server on /mcp', () => {
  beforeAll(async () => {
    await register('files');
  });

  it("an OAuth caller's call carries a token exchanged for the upstream's audience: the upstream sees the caller's subject", async () => {
    expect(await toolNames(subjectToken)).toContain('files__whoami');
    const result = (await mcp(subjectToken, call(2, 'files__whoami'))).result;
    expect(result.isError).toBeFalsy();
    expect(result.content[0].text).toBe(`you are ${key.user}`);
    expect(upstream.subjects).toContain(key.user);
    expect(upstream.refused).toBe(0);
    // Not the caller's own token passed through: one of the upstream's audience, made for keygate's exchange client.
    expect(upstream.tokens).not.toContain(subjectToken);
    for (const token of upstream.tokens)
      expect(claimsOf(token)).toMatchObject({ sub: key.user, aud: upstream.url, client_id: EXCHANGER.clientId });
  });

  it('a run of calls exchanges once: every request carries the same exchanged token', async () => {
    for (let id = 10; id < 14; id += 1) expect((await mcp(subjectToken, call(id, 'files__whoami'))).result.isError).toBeFalsy();
    expect(new Set(upstream.tokens).size).toBe(1);
  });

  it('a caller with a keygate key gets a tool error, no tools of the server, and the upstream sees nothing', async () => {
    const seen = upstream.tokens.length;
    expect((await toolNames(key.raw)).filter((name) => name.startsWith('files__'))).toEqual([]);
    const result = (await mcp(key.raw, call(3, 'files__whoami'))).result;
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe(
      "The MCP server files takes the caller's own OAuth access token (token_exchange auth), and an API key has none: call it with an OAuth access token on /mcp",
    );
    expect(upstream.tokens.length).toBe(seen);
    expect(upstream.refused).toBe(0);
  });

  it('a refused exchange is a tool error naming the server and the short code, and the upstream sees nothing', async () => {
    await register('wrongclient', 'not-the-exchanger-secret');
    const seen = upstream.tokens.length;
    const result = (await mcp(subjectToken, call(4, 'wrongclient__whoami'))).result;
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe(
      'The MCP server wrongclient was not contacted: the token exchange at its authorization server failed (grant_refused: invalid_client)',
    );
    expect(upstream.tokens.length).toBe(seen);
  });

  it('keeps every token out of every answer, log line, audit event and table', async () => {
    const events = await request(t.app)
      .get('/api/v1/audit-events?limit=100')
      .set('Authorization', `Bearer ${t.userToken(key.user)}`)
      .expect(200);
    answers.push(events.text);
    expect(events.body.events.map((event: { action: string }) => event.action)).toContain('tool.called');
    const tokens = [subjectToken, ...new Set(upstream.tokens), EXCHANGER.clientSecret];
    expect(tokens.length).toBeGreaterThan(2);
    for (const token of tokens) {
      expect(answers.join('\n')).not.toContain(token);
      expect(logLines.join('\n')).not.toContain(token);
      expect(await tablesContaining(t.db.dataSource, token)).toEqual([]);
    }
  });
});
