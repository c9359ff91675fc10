import http from 'node:http';
import { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { makeKey, TestKey } from '../support/mcp-keys';
import { NGINX_CANDIDATES, RunningNginx, startNginx } from '../support/nginx';
import { startTestApp, TestApp } from '../support/test-app';
import { describeWithProgram, installedAt } from '../support/system-program';

jest.setTimeout(60_000);

/**
 * docs/forward-auth.md's NGINX configuration, run for real: auth_request in front of
 * an upstream app, each location naming the scope it needs.
 */
const nginxServer = (keygatePort: number, appPort: number) => (port: number) => `
  upstream keygate { server 127.0.0.1:${keygatePort}; keepalive 8; }
  upstream app { server 127.0.0.1:${appPort}; }
  server {
    listen 127.0.0.1:${port};

    # Every request is checked by keygate first (locations below opt out with auth_request off).
    auth_request /_keygate_authz;
    auth_request_set $keygate_user_id $upstream_http_x_keygate_user_id;
    auth_request_set $keygate_key_id $upstream_http_x_keygate_key_id;
    auth_request_set $keygate_scopes $upstream_http_x_keygate_scopes;
    # NGINX turns any status but 2xx, 401 and 403 into 500; these two let a 429 through.
    auth_request_set $keygate_status $upstream_status;
    auth_request_set $keygate_retry_after $upstream_http_retry_after;
    error_page 500 = @keygate_refused;
    # What the app learns: who called, never the key itself.
    proxy_set_header X-Keygate-User-Id $keygate_user_id;
    proxy_set_header X-Keygate-Key-Id $keygate_key_id;
    proxy_set_header X-Keygate-Scopes $keygate_scopes;
    proxy_set_header Authorization "";
    proxy_set_header X-API-Key "";

    location /projects/ {
      set $keygate_scope projects:read;
      proxy_pass http://app;
    }
    location /chat/ {
      set $keygate_scope chat:write;
      proxy_pass http://app;
    }
    location /any-key/ {
      set $keygate_scope "";
      proxy_pass http://app;
    }

    location = /_keygate_authz {
      internal;
      auth_request off;
      proxy_pass http://keygate/authz;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Keygate-Required-Scope $keygate_scope;
      # With TRUST_PROXY set, the failed-validation limit counts the client, not NGINX.
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
    location @keygate_refused {
      auth_request off;
      if ($keygate_status = 429) {
        add_header Retry-After $keygate_retry_after always;
        return 429;
      }
      return 500;
    }
  }
`;

interface Seen {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
}

let t: TestApp;
let keygate: http.Server;
let upstream: http.Server;
let nginx: RunningNginx | undefined;
const seen: Seen[] = [];

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: 'loopback' });
  keygate = http.createServer(t.app);
  // The protected app: says what reached it.
  upstream = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers });
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ path: req.url, userId: req.headers['x-keygate-user-id'] ?? null }));
  });
  const [keygatePort, appPort] = await Promise.all([listen(keygate), listen(upstream)]);
  nginx = await startNginx(nginxServer(keygatePort, appPort));
});

afterAll(async () => {
  await nginx?.stop();
  await new Promise((resolve) => upstream?.close(resolve));
  await new Promise((resolve) => keygate?.close(resolve));
  await t?.close();
});

function viaNginx(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  return fetch(`${nginx!.url}${path}`, { method, headers });
}

const lastSeen = () => seen[seen.length - 1];

describeWithProgram(
  'nginx',
  installedAt(NGINX_CANDIDATES),
  'apt-get install nginx',
)('keygate behind a real NGINX (auth_request)', () => {
  let reader: TestKey;
  beforeAll(async () => {
    reader = await makeKey(t, ['projects:read']);
  });

  it('lets a key with the scope through, and the app gets its user id, key id and scopes but not the key', async () => {
    const before = seen.length;
    const res = await viaNginx('/projects/7', { Authorization: `Bearer ${reader.raw}` });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: '/projects/7', userId: reader.user });
    expect(seen).toHaveLength(before + 1);
    expect(lastSeen().headers['x-keygate-key-id']).toBe(reader.id);
    expect(lastSeen().headers['x-keygate-scopes']).toBe('projects:read');
    expect(lastSeen().headers.authorization).toBeUndefined();
  });

  it('passes X-API-Key too, and a POST with its body still reaches the app', async () => {
    const res = await fetch(`${nginx!.url}/projects/`, {
      method: 'POST',
      headers: { 'X-API-Key': reader.raw, 'Content-Type': 'application/json' },
      body: '{"name":"x"}',
    });
    expect(res.status).toBe(200);
    expect(lastSeen().method).toBe('POST');
    expect(lastSeen().headers['x-keygate-user-id']).toBe(reader.user);
    expect(lastSeen().headers['x-api-key']).toBeUndefined();
  });

  it("puts keygate's user id in place of one the client sent", async () => {
    const res = await viaNginx('/any-key/me', { Authorization: `Bearer ${reader.raw}`, 'X-Keygate-User-Id': randomUUID() });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { userId: string }).userId).toBe(reader.user);
  });

  it("answers 401 with keygate's Bearer challenge for no key, an unknown key and a revoked key, and the app sees nothing", async () => {
    const revoked = await makeKey(t, ['projects:read']);
    await request(t.app)
      .delete(`/api/v1/api-keys/${revoked.id}`)
      .set('Authorization', `Bearer ${t.userToken(revoked.user)}`)
      .expect(204);
    const before = seen.length;
    const none = await viaNginx('/projects/7');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="keygate"');
    for (const raw of [`svc_${'a'.repeat(64)}`, revoked.raw]) {
      const res = await viaNginx('/projects/7', { Authorization: `Bearer ${raw}` });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="keygate", error="invalid_token"');
    }
    expect(seen).toHaveLength(before);
  });

  it("answers 403 for a valid key without the location's scope, and the app sees nothing", async () => {
    const before = seen.length;
    const res = await viaNginx('/chat/send', { Authorization: `Bearer ${reader.raw}` });
    expect(res.status).toBe(403);
    expect(seen).toHaveLength(before);
  });

  it("cannot be talked out of the location's scope by a header the client sends", async () => {
    const res = await viaNginx('/chat/send', { Authorization: `Bearer ${reader.raw}`, 'X-Keygate-Required-Scope': 'projects:read' });
    expect(res.status).toBe(403);
  });

  it("lets a rate-limited key's 429 and Retry-After through", async () => {
    const user = randomUUID();
    const created = await request(t.app)
      .post('/api/v1/api-keys')
      .set('Authorization', `Bearer ${t.userToken(user)}`)
      .send({ name: 'limited', scopes: ['projects:read'], rate_limit: { limit: 1, window_seconds: 86400 } })
      .expect(201);
    const headers = { Authorization: `Bearer ${created.body.raw_key}` };
    expect((await viaNginx('/projects/1', headers)).status).toBe(200);
    const limited = await viaNginx('/projects/1', headers);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('logged no error of its own but the 429 it always reports (a broken auth location would)', () => {
    const errors = nginx!
      .errorLog()
      .split('\n')
      .filter((line) => /\[(error|crit|alert|emerg)\]/.test(line));
    expect(errors.filter((line) => !line.includes('auth request unexpected status: 429'))).toEqual([]);
  });
});
