import request from 'supertest';
import { serveJsonOverHttps, testCa } from '../support/local-ca';
import { call, makeKey, rpc, TestKey } from '../support/mcp-keys';
import { OAuthAuthorizationServer } from '../support/oauth-authorization-server';
import { OAuthUpstream, startOAuthUpstream } from '../support/oauth-upstream';
import { startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

/**
 * keygate as a Client ID Metadata Document client (the MCP authorization
 * spec's preferred registration): under an https PUBLIC_URL it serves its
 * document at /oauth/client-metadata.json, and an authorization server that
 * supports documents gets that URL as client id and fetches it, so keygate
 * registers nowhere. The https origin here is a loopback server (a test CA
 * the authorization server trusts) handing out the document keygate serves.
 */
const DOCUMENT_PATH = '/oauth/client-metadata.json';
const BASE = '/api/v1/mcp-servers';

let t: TestApp;
let as: OAuthAuthorizationServer;
let upstream: OAuthUpstream;
let front: Awaited<ReturnType<typeof serveJsonOverHttps>>;
let alice: TestKey;
const documents: Record<string, () => unknown> = {};
beforeAll(async () => {
  const ca = await testCa();
  front = await serveJsonOverHttps(ca, documents);
  as = await new OAuthAuthorizationServer().start({ resourceScopes: 'mcp:tools', cimdCa: ca.caCert });
  upstream = await startOAuthUpstream(as);
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', PUBLIC_URL: front.origin });
  const served = await request(t.app).get(DOCUMENT_PATH).expect(200);
  documents[DOCUMENT_PATH] = () => served.body as unknown;
  alice = await makeKey(t);
});
afterAll(async () => {
  await t?.close();
  await upstream?.stop();
  await as?.stop();
  await front?.close();
});

describe('the Client ID Metadata Document', () => {
  it('is served under the https PUBLIC_URL: a public client whose id is its own URL, redirecting to the console', async () => {
    const res = await request(t.app).get(DOCUMENT_PATH).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      client_id: `${front.origin}${DOCUMENT_PATH}`,
      client_name: 'keygate',
      redirect_uris: [`${front.origin}/console/connections/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
  });

  it('is the client id at an authorization server that takes documents: it fetches it, keygate registers nowhere, the user connects and calls', async () => {
    const jwt = `Bearer ${t.userToken(alice.user)}`;
    const created = await request(t.app)
      .post(BASE)
      .set('Authorization', jwt)
      .send({ name: 'linear', url: upstream.url, auth: { type: 'oauth' } })
      .expect(201);
    const id = created.body.id as string;
    const begun = await request(t.app).post(`${BASE}/${id}/connection`).set('Authorization', jwt).send({}).expect(201);
    const url = new URL(begun.body.authorization_url as string);
    expect(url.searchParams.get('client_id')).toBe(`${front.origin}${DOCUMENT_PATH}`);
    const back = await as.authorize(url.href, url.searchParams.get('redirect_uri')!, { account: 'alice-at-linear' });
    expect(back.error).toBeNull();
    expect(front.hits.get(DOCUMENT_PATH)).toBeGreaterThan(0);
    await request(t.app)
      .post(`${BASE}/connections/callback`)
      .set('Authorization', jwt)
      .send({ code: back.code, state: back.state, ...(back.iss ? { iss: back.iss } : {}) })
      .expect(201);
    const answer = await rpc(t, alice, call(1, 'linear__whoami')).expect(200);
    expect(answer.body.result.content[0].text).toBe('you are alice-at-linear');
    expect(await t.db.dataSource.query('SELECT * FROM mcp_client_registrations')).toEqual([]);
  });

  it('is absent without an https public URL (404): an http origin cannot be a client id', async () => {
    const plain = await startTestApp({ PUBLIC_URL: 'http://keygate.test' });
    try {
      expect((await request(plain.app).get(DOCUMENT_PATH)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
