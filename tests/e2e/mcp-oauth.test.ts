import { randomUUID } from 'node:crypto';
import { discoverOAuthProtectedResourceMetadata, selectResourceURL } from '@modelcontextprotocol/sdk/client/auth.js';
import request from 'supertest';
import { AUDIT_COLUMNS, AuditEventRow } from '../../src/adapters/persistence/audit/audit-event.row';
import { connectClient, listen } from '../support/mcp-client';
import { call, makeKey, recordCount, rpc } from '../support/mcp-keys';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_AUDIENCE, TEST_ISSUER, TokenOptions } from '../support/test-identity-provider';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

const RESOURCE = 'https://keygate.test/mcp';
const METADATA = 'https://keygate.test/.well-known/oauth-protected-resource/mcp';
/** /mcp/servers/anything is a resource of its own, with its own metadata (RFC 9728 section 3.1). */
const ANYTHING_METADATA = 'https://keygate.test/.well-known/oauth-protected-resource/mcp/servers/anything';
const OTHER_ISSUER = 'https://other-idp.keygate.test/';
const SCOPES = [
  'agents:read',
  'agents:write',
  'projects:read',
  'projects:write',
  'routines:read',
  'routines:write',
  'mcp_servers:read',
  'mcp_servers:write',
  'chat:read',
  'chat:write',
  'models:read',
  'models:write',
];

let t: TestApp;
let upstream: UpstreamMcpServer;
beforeAll(async () => {
  t = await startTestApp({
    MCP_RESOURCE_URL: RESOURCE,
    MCP_AUTHORIZATION_SERVERS: `${TEST_ISSUER}, ${OTHER_ISSUER}`,
    MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8',
    // Every refusal below counts toward the one test address's failure limit.
    AUTH_FAILURE_LIMIT: '200',
  });
  upstream = await startUpstream('files');
});
afterAll(async () => {
  await upstream?.stop();
  await t?.close();
});

/** An access token for /mcp: the resource as audience, the given scope claim. */
function mcpToken(sub: string, options: TokenOptions = {}): string {
  return t.idp.token({ sub, audience: RESOURCE, ...options });
}

const withScope = (sub: string, scope: string, options: TokenOptions = {}) =>
  mcpToken(sub, { ...options, extra: { scope, ...options.extra } });

/** One JSON-RPC POST with whatever Authorization is given. */
function post(authorization: string | undefined, body: unknown, path = '/mcp', headers: Record<string, string> = {}) {
  const req = request(t.app)
    .post(path)
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream')
    .set(headers);
  if (authorization !== undefined) req.set('Authorization', authorization);
  return req.send(JSON.stringify(body));
}

const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const toolNames = (res: request.Response) => (res.body.result.tools as { name: string }[]).map((tool) => tool.name).sort();

describe('protected resource metadata (RFC 9728)', () => {
  it('is served at the well-known URL derived from MCP_RESOURCE_URL', async () => {
    const res = await request(t.app).get('/.well-known/oauth-protected-resource/mcp').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      resource: RESOURCE,
      authorization_servers: [TEST_ISSUER, OTHER_ISSUER],
      scopes_supported: SCOPES,
      bearer_methods_supported: ['header'],
      resource_name: 'keygate',
    });
  });
});

describe('401 challenges on /mcp name the metadata', () => {
  it.each([
    ['no credentials', undefined, `Bearer realm="keygate", resource_metadata="${METADATA}"`, 'invalid-api-key'],
    [
      'an unknown key',
      `Bearer svc_${'0'.repeat(64)}`,
      `Bearer realm="keygate", error="invalid_token", resource_metadata="${METADATA}"`,
      'invalid-api-key',
    ],
    [
      'a malformed token',
      'Bearer a.b.c',
      `Bearer realm="keygate", error="invalid_token", resource_metadata="${METADATA}"`,
      'invalid-access-token',
    ],
  ])('%s', async (_case, authorization, challenge, slug) => {
    for (const [path, metadata] of [
      ['/mcp', METADATA],
      ['/mcp/servers/anything', ANYTHING_METADATA],
      ['/mcp/servers/Not_A_Name', METADATA],
    ]) {
      const res = await post(authorization, list, path).expect(401);
      expect(res.headers['www-authenticate']).toBe(challenge.replace(METADATA, metadata));
      expect(res.body.type).toBe(`urn:keygate:problem:${slug}`);
    }
    const get = request(t.app).get('/mcp');
    if (authorization) get.set('Authorization', authorization);
    expect((await get.expect(401)).headers['www-authenticate']).toBe(challenge);
  });

  it.each([
    ['the REST API audience', () => t.userToken(randomUUID())],
    ['another audience', () => mcpToken(randomUUID(), { audience: 'https://keygate.test/mcp/other' })],
    ['an issuer not listed', () => mcpToken(randomUUID(), { issuer: 'https://evil.test/' })],
    ['an expired token', () => mcpToken(randomUUID(), { expiresIn: -10 })],
    ['a token without exp', () => mcpToken(randomUUID(), { expiresIn: null })],
    ['a token valid for longer than JWT_MAX_LIFETIME_SECONDS', () => mcpToken(randomUUID(), { expiresIn: null, extra: { exp: 1e300 } })],
    ['a key outside the JWKS', () => t.idp.tokenFromStranger({ sub: randomUUID(), audience: RESOURCE })],
    ['a subject that is not a UUID', () => mcpToken('alice')],
  ])('refuses %s with invalid_token and nothing that helps forge one', async (_case, token) => {
    const res = await post(`Bearer ${token()}`, list).expect(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer realm="keygate", error="invalid_token", resource_metadata="${METADATA}"`);
    expect(res.body.type).toBe('urn:keygate:problem:invalid-access-token');
    for (const secret of [TEST_ISSUER, TEST_AUDIENCE, 'https://keygate.test/mcp/other']) expect(res.text).not.toContain(secret);
  });

  it('refuses an oversized token before looking at it, and a token sent with a key header', async () => {
    const big = `${'e'.repeat(5000)}.${'e'.repeat(5000)}.x`;
    expect((await post(`Bearer ${big}`, list).expect(401)).body.detail).toBe('token too large');
    const key = await makeKey(t);
    await post(`Bearer ${withScope(key.user, 'projects:read')}`, list, '/mcp', { 'X-API-Key': key.raw }).expect(401);
  });
});

describe('access tokens on /mcp', () => {
  it('are accepted with the resource among several audiences, from either issuer', async () => {
    const sub = randomUUID();
    // jsonwebtoken writes an array audience as given.
    const audiences = ['https://elsewhere.test', RESOURCE] as unknown as string;
    const res = await post(`Bearer ${withScope(sub, 'projects:read', { audience: audiences })}`, list).expect(200);
    expect(toolNames(res)).toEqual(['projects']);
    const other = await post(`Bearer ${withScope(sub, 'chat:read', { issuer: OTHER_ISSUER })}`, list).expect(200);
    expect(toolNames(other)).toEqual(['chat']);
  });

  it('grant exactly the keygate scopes of a space-separated scope claim, ignoring others', async () => {
    const res = await post(`Bearer ${withScope(randomUUID(), 'openid projects:read models:write profile agents:admin')}`, list).expect(200);
    expect(toolNames(res)).toEqual(['models', 'projects']);
  });

  it('grant exactly the keygate scopes of an scp array', async () => {
    const res = await post(`Bearer ${mcpToken(randomUUID(), { extra: { scp: ['chat:write', 'email', 42] } })}`, list).expect(200);
    expect(toolNames(res)).toEqual(['chat']);
  });

  it('grant nothing when the token holds no keygate scope: no tools, and a call is refused', async () => {
    const sub = randomUUID();
    for (const token of [withScope(sub, 'openid email'), mcpToken(sub), withScope(sub, '')]) {
      expect((await post(`Bearer ${token}`, list).expect(200)).body.result.tools).toEqual([]);
      await post(`Bearer ${token}`, call(2, 'projects', { action: 'create', data: { name: 'x' } })).expect(403);
    }
    expect(await recordCount(t, sub)).toBe(0);
  });

  it('run tools for the token subject, who owns the records', async () => {
    const sub = randomUUID();
    const token = withScope(sub, 'projects:write');
    const created = await post(`Bearer ${token}`, call(3, 'projects', { action: 'create', data: { name: 'via oauth' } })).expect(200);
    expect(created.body.result.isError).toBeUndefined();
    expect(await recordCount(t, sub)).toBe(1);
  });
});

describe('step-up: a call outside the scopes is 403 with insufficient_scope and the metadata', () => {
  const stepUp = (scope: string) => `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${METADATA}"`;

  it('for a token', async () => {
    const sub = randomUUID();
    const res = await post(`Bearer ${withScope(sub, 'chat:read')}`, call(4, 'projects', { action: 'get', id: randomUUID() })).expect(403);
    expect(res.headers['www-authenticate']).toBe(stepUp('projects:read'));
    expect(res.body).toMatchObject({ id: 4, error: { code: -32003, data: { required_scopes: ['projects:read'] } } });
  });

  it('for a key', async () => {
    const key = await makeKey(t, ['projects:read']);
    const res = await rpc(t, key, call(5, 'projects', { action: 'delete', id: randomUUID() })).expect(403);
    expect(res.headers['www-authenticate']).toBe(stepUp('projects:write'));
  });
});

describe('/mcp/servers/<name>, a protected resource of its own', () => {
  const FILES = 'https://keygate.test/mcp/servers/files';

  /** A `files` server record of a new subject, on the test upstream: chat:read reaches `echo`, chat:write `secret`. */
  async function ownerOfFiles(): Promise<string> {
    const sub = randomUUID();
    const data = { name: 'files', url: upstream.url, tool_scopes: { echo: ['chat:read'], secret: ['chat:write'] } };
    const created = await post(`Bearer ${withScope(sub, 'mcp_servers:write')}`, call(1, 'mcp_servers', { action: 'create', data })).expect(
      200,
    );
    expect(created.body.result.isError).toBeUndefined();
    return sub;
  }

  it('has its metadata at the path-derived address for any name a server could have, and none for other names', async () => {
    for (const name of ['files', 'no-such-server']) {
      const res = await request(t.app).get(`/.well-known/oauth-protected-resource/mcp/servers/${name}`).expect(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.body).toEqual({
        resource: `https://keygate.test/mcp/servers/${name}`,
        authorization_servers: [TEST_ISSUER, OTHER_ISSUER],
        scopes_supported: SCOPES,
        bearer_methods_supported: ['header'],
        resource_name: 'keygate',
      });
    }
    for (const path of ['servers/Not_A_Name', `servers/${'a'.repeat(33)}`, 'servers/files/more', 'servers']) {
      await request(t.app).get(`/.well-known/oauth-protected-resource/mcp/${path}`).expect(404);
    }
  });

  it('is found by a client starting afresh from the endpoint URL alone, whose token for it is accepted there and nowhere else', async () => {
    const sub = await ownerOfFiles();
    const server = await listen(t.app);
    try {
      // What the SDK client does on a new connection: path-aware discovery first, from the URL it was given.
      const metadata = await discoverOAuthProtectedResourceMetadata(`${server.url}/servers/files`);
      expect(metadata.resource).toBe(FILES);
      expect(String(await selectResourceURL(FILES, {} as never, metadata))).toBe(FILES);
    } finally {
      await server.close();
    }
    const own = `Bearer ${withScope(sub, 'chat:read', { audience: FILES })}`;
    expect(toolNames(await post(own, list, '/mcp/servers/files').expect(200))).toEqual(['echo']);
    // Another server's endpoint and /mcp are other resources.
    for (const path of ['/mcp', '/mcp/servers/docs']) {
      const res = await post(own, list, path).expect(401);
      expect(res.body.type).toBe('urn:keygate:problem:invalid-access-token');
    }
  });

  it('still takes a token for /mcp, which reaches every server', async () => {
    const sub = await ownerOfFiles();
    expect(toolNames(await post(`Bearer ${withScope(sub, 'chat:read')}`, list, '/mcp/servers/files').expect(200))).toEqual(['echo']);
  });

  it('names its own metadata in a step-up challenge', async () => {
    const sub = await ownerOfFiles();
    const res = await post(`Bearer ${withScope(sub, 'chat:read')}`, call(3, 'secret'), '/mcp/servers/files').expect(403);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", scope="chat:write", resource_metadata="${ANYTHING_METADATA.replace('anything', 'files')}"`,
    );
  });
});

describe('sessions opened with a token', () => {
  it('serve the official SDK client, belong to the subject, and are 404 to keys and other users', async () => {
    const sub = randomUUID();
    const server = await listen(t.app);
    try {
      const client = await connectClient(server.url, { Authorization: `Bearer ${withScope(sub, 'projects:write')}` });
      const created = await client.callTool({ name: 'projects', arguments: { action: 'create', data: { name: 'in a session' } } });
      expect(created.isError).toBeFalsy();
      const session = (client.transport as unknown as { sessionId: string }).sessionId;
      expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const inSession = { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' };
      // A refreshed token of the same subject continues the session.
      expect((await post(`Bearer ${withScope(sub, 'projects:read')}`, list, '/mcp', inSession)).status).toBe(200);
      // Another user, and a key of the same user, do not.
      expect((await post(`Bearer ${withScope(randomUUID(), 'projects:read')}`, list, '/mcp', inSession)).status).toBe(404);
      const key = await makeKey(t, [], sub);
      expect((await rpc(t, key, list, inSession)).status).toBe(404);
      await client.close();
    } finally {
      await server.close();
    }
  });

  it('end when the token that last used them expires', async () => {
    const sub = randomUUID();
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const opened = await post(`Bearer ${withScope(sub, 'projects:read', { expiresIn: 2 })}`, init).expect(200);
    const inSession = { 'Mcp-Session-Id': opened.headers['mcp-session-id'] };
    expect((await post(`Bearer ${withScope(sub, 'projects:read')}`, list, '/mcp', inSession)).status).toBe(200);
    const [row] = await t.db.dataSource.query('SELECT key_id, user_id, expires_at FROM mcp_sessions WHERE user_id = $1', [sub]);
    // The fresher token moved the session's end to its own expiry.
    expect(new Date(row.expires_at).getTime()).toBeGreaterThan(Date.now() + 60_000);

    const short = await post(`Bearer ${withScope(sub, 'projects:read', { expiresIn: 2 })}`, init).expect(200);
    await new Promise((r) => setTimeout(r, 2200));
    const later = await post(`Bearer ${withScope(sub, 'projects:read')}`, list, '/mcp', {
      'Mcp-Session-Id': short.headers['mcp-session-id'],
    });
    expect(later.status).toBe(404);
  });
});

describe('audit and limits for tokens', () => {
  it('records tool calls with the user as actor and no key', async () => {
    const sub = randomUUID();
    await post(`Bearer ${withScope(sub, 'projects:write')}`, call(6, 'projects', { action: 'list' })).expect(200);
    await post(`Bearer ${withScope(sub, 'chat:read')}`, call(7, 'projects', { action: 'list' })).expect(403);
    let rows: AuditEventRow[] = [];
    for (let i = 0; i < 80 && rows.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 25));
      rows = await t.db.dataSource.query(
        `SELECT ${AUDIT_COLUMNS} FROM audit_events WHERE user_id = $1 AND action LIKE 'tool.%' ORDER BY seq`,
        [sub],
      );
    }
    expect(rows.map((r) => [r.action, r.actor_type, r.actor_id, r.key_id])).toEqual([
      ['tool.called', 'user', sub, null],
      ['tool.denied', 'user', sub, null],
    ]);
  });

  it('has no rate limit headers: a token has no limits', async () => {
    const res = await post(`Bearer ${withScope(randomUUID(), 'projects:read')}`, list).expect(200);
    expect(res.headers['ratelimit']).toBeUndefined();
  });
});

describe('with OAuth off', () => {
  let off: TestApp;
  beforeAll(async () => {
    off = await startTestApp();
  });
  afterAll(() => off?.close());

  it('serves no metadata, challenges as before, and refuses tokens', async () => {
    await request(off.app).get('/.well-known/oauth-protected-resource/mcp').expect(404);
    await request(off.app).get('/.well-known/oauth-protected-resource/mcp/servers/files').expect(404);
    const bare = await request(off.app).post('/mcp').send({}).expect(401);
    expect(bare.headers['www-authenticate']).toBe('Bearer realm="keygate"');
    const token = off.idp.token({ sub: randomUUID(), audience: RESOURCE, extra: { scope: 'projects:read' } });
    const res = await request(off.app).post('/mcp').set('Authorization', `Bearer ${token}`).send({}).expect(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="keygate", error="invalid_token"');
  });
});
