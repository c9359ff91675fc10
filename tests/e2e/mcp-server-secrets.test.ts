import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import request from 'supertest';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { EchoingMode, EchoingUpstream, startEchoingUpstream } from '../support/echoing-upstream';
import { call, makeKey, recordCount, rpc, TestKey } from '../support/mcp-keys';
import { tablesContaining } from '../support/plaintext-scan';
import { createLogger } from '../../src/infrastructure/logging/logger';
import { startTestApp, TestApp } from '../support/test-app';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';

let t: TestApp;
let upstream: UpstreamMcpServer;
let elsewhere: UpstreamMcpServer;
let owner: TestKey;
const logLines: string[] = [];
const token = `tok-${randomBytes(12).toString('hex')}`;
const secret = `Bearer ${token}`;
beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '2000' }, undefined, {
    logger: createLogger('trace', new Writable({ write: (chunk, _enc, done) => (logLines.push(chunk.toString()), done()) })),
  });
  [upstream, elsewhere] = [await startUpstream(), await startUpstream()];
  owner = await makeKey(t);
});
afterAll(async () => {
  await upstream.stop();
  await elsewhere.stop();
  await t.close();
});

/** tools/call of the built-in mcp_servers tool; the JSON-RPC result. */
async function servers(key: TestKey, args: Record<string, unknown>) {
  return (await rpc(t, key, call(1, 'mcp_servers', args)).expect(200)).body.result;
}
const register = async (name: string, url = upstream.url) =>
  (await servers(owner, { action: 'create', data: { name, url, headers: { Authorization: secret } } })).structuredContent.record
    .id as string;
const authorizationsAt = (server: UpstreamMcpServer) => server.seenHeaders.map((h) => h.authorization);
const unreadableCount = async () =>
  Number(/keygate_stored_secrets_unreadable_total (\d+)/.exec((await request(t.app).get('/metrics').expect(200)).text)?.[1] ?? 0);

describe('upstream header values', () => {
  it('cannot be found by a read-only key through search or query', async () => {
    await register('vault');
    const reader = await makeKey(t, ['mcp_servers:read'], owner.user);
    for (const text of [token, token.slice(0, 5), 'Bearer', 'Authorization', 'v1:']) {
      expect((await servers(reader, { action: 'search', data: { text } })).structuredContent).toEqual({ records: [] });
    }
    for (const where of [{ headers: { Authorization: secret } }, { headers: {} }]) {
      expect((await servers(reader, { action: 'query', data: { where } })).structuredContent).toEqual({ records: [] });
    }
    const listed = await servers(reader, { action: 'list' });
    expect(listed.structuredContent.records[0].data.headers).toEqual({ Authorization: '********' });
    expect(JSON.stringify(listed)).not.toContain(token);
  });

  it('still reach the upstream they were registered for', async () => {
    upstream.seenHeaders.length = 0;
    await rpc(t, owner, call(2, 'vault__echo', { text: 'hi' })).expect(200);
    expect(authorizationsAt(upstream)).toContain(secret);
  });

  it('are dropped when an update moves the url to another origin, the mask included', async () => {
    const moved = await register('moved');
    const masked = await register('masked');
    const plain = await servers(owner, { action: 'update', id: moved, data: { url: elsewhere.url } });
    expect(plain.structuredContent.record.data.headers).toBeUndefined();
    const withMask = await servers(owner, {
      action: 'update',
      id: masked,
      data: { url: elsewhere.url, headers: { Authorization: '********' } },
    });
    expect(withMask.structuredContent.record.data.headers).toEqual({});
    for (const [i, name] of ['moved__echo', 'masked__echo'].entries()) {
      expect((await rpc(t, owner, call(3 + i, name, { text: 'x' })).expect(200)).body.result.isError).toBeFalsy();
    }
    expect(elsewhere.seenHeaders.length).toBeGreaterThan(0);
    expect(authorizationsAt(elsewhere).filter((a) => a !== undefined)).toEqual([]);
  });

  it('never follow a redirect to another origin, whichever revision keygate tries', async () => {
    // A 2025-only server (it refuses the 2026 probe as SDK v1 does, then passes everything on to `upstream`) that answers a
    // tools/call with a 307 to `elsewhere`, path kept: a record whose server moved, or one planted to harvest headers.
    const redirector = http.createServer(
      (req, res) =>
        void (async () => {
          const chunks: Buffer[] = [];
          for await (const chunk of req) chunks.push(chunk as Buffer);
          const body = Buffer.concat(chunks).toString();
          if (req.headers['mcp-protocol-version'] === '2026-07-28') {
            return void res
              .writeHead(400, { 'content-type': 'application/json' })
              .end(
                JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Unsupported protocol version' } }),
              );
          }
          if (body.includes('"tools/call"'))
            return void res.writeHead(307, { location: new URL(req.url ?? '/', elsewhere.url).href }).end();
          const headers = Object.fromEntries(
            Object.entries(req.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)) as [string, string][],
          );
          const passed = await fetch(upstream.url, { method: req.method, headers, body: req.method === 'POST' ? body : undefined });
          res.writeHead(passed.status, Object.fromEntries(passed.headers));
          res.end(Buffer.from(await passed.arrayBuffer()));
        })(),
    );
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/mcp`;
      await servers(owner, { action: 'create', data: { name: 'redirected', url, headers: { 'X-Upstream-Token': token } } });
      elsewhere.seenHeaders.length = 0;
      const answer = (await rpc(t, owner, call(9, 'redirected__echo', { text: 'x' })).expect(200)).body;
      expect(JSON.stringify(answer)).not.toContain(token);
      expect(elsewhere.seenHeaders.map((h) => h['x-upstream-token']).filter((v) => v !== undefined)).toEqual([]);
    } finally {
      await new Promise((resolve) => redirector.close(resolve));
    }
  });

  it('appear in no table and no log line', async () => {
    expect(await tablesContaining(t.db.dataSource, token)).toEqual([]);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.filter((line) => line.includes(token))).toEqual([]);
  });
});

describe('header values that are not HTTP field values', () => {
  it('are refused at write time by the mcp_servers tool as invalid params (-32602), the header named and the value never quoted', async () => {
    const user = await makeKey(t);
    const bad = `Bearer tok-${randomBytes(8).toString('hex')}`;
    /** The JSON-RPC answer of one mcp_servers call: an error here, not a result. */
    const answer = async (args: Record<string, unknown>) => (await rpc(t, user, call(1, 'mcp_servers', args)).expect(200)).body;
    for (const value of [`${bad}\n`, `${bad}\r\nX-Injected: 1`, ` ${bad}`, `${bad}\u0000`]) {
      const refused = await answer({
        action: 'create',
        data: { name: 'pasted', url: upstream.url, headers: { 'X-Fine': 'ok', Authorization: value } },
      });
      expect(refused.result).toBeUndefined();
      expect(refused.error).toMatchObject({ code: -32602, message: expect.stringMatching(/data\.headers\.Authorization/) });
      expect(JSON.stringify(refused)).not.toContain(bad.slice(7));
    }
    const refusedName = await answer({ action: 'create', data: { name: 'pasted', url: upstream.url, headers: { 'X-Key\nHost': 'v' } } });
    expect(refusedName.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/data\.headers: has a name that is not an HTTP header name/),
    });
    expect(await recordCount(t, user.user)).toBe(0);
    const id = (
      await servers(user, { action: 'create', data: { name: 'fine', url: upstream.url, headers: { Authorization: 'Bearer ok' } } })
    ).structuredContent.record.id;
    const update = await answer({ action: 'update', id, data: { headers: { Authorization: `${bad}\n` } } });
    expect(update.error).toMatchObject({ code: -32602, message: expect.stringMatching(/data\.headers\.Authorization/) });
    expect(JSON.stringify(update)).not.toContain(bad.slice(7));
  });
});

describe('a stored header value, whatever the upstream or the transport says', () => {
  const echoing: EchoingUpstream[] = [];
  afterAll(() => Promise.all(echoing.map((server) => server.stop())));

  /** A URL on which nothing listens any more. */
  async function closedUrl(): Promise<string> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return `http://127.0.0.1:${port}/mcp`;
  }

  it('reaches no answer, no log line and no audit event: callers get a general message', async () => {
    const user = await makeKey(t);
    const secrets: string[] = [];
    /** Registers a server with a distinct secret in each of its headers; the secrets as they would be searched for. */
    const registerWithSecrets = async (name: string, url: string) => {
      const [auth, apiKey] = [`tok-${name}-${randomBytes(8).toString('hex')}`, `key-${name}-${randomBytes(8).toString('hex')}`];
      secrets.push(auth, apiKey);
      const created = await servers(user, {
        action: 'create',
        data: { name, url, headers: { Authorization: `Bearer ${auth}`, 'X-Api-Key': apiKey } },
      });
      expect(created.isError).toBeFalsy();
      return { id: created.structuredContent.record.id as string, auth, apiKey };
    };
    const modes: EchoingMode[] = ['status-401', 'status-500', 'rpc-error', 'malformed', 'oversize', 'silent'];
    for (const mode of modes) {
      const server = await startEchoingUpstream(mode);
      echoing.push(server);
      await registerWithSecrets(mode, server.url);
    }
    await registerWithSecrets('refused', await closedUrl());
    await registerWithSecrets('tls', upstream.url.replace(/^http:/, 'https:'));
    // A value the write-time check refuses can only come from a row written in SQL: a pasted secret with its line break.
    const pasted = await registerWithSecrets('bad-header', upstream.url);
    await t.db.dataSource.query(
      `UPDATE resource_records SET data = jsonb_set(data, '{headers}', $2::jsonb), updated_at = now() WHERE id = $1`,
      [pasted.id, JSON.stringify({ Authorization: `Bearer ${pasted.auth}\nX-Injected: 1`, 'X-Api-Key': `${pasted.apiKey}\r\n` })],
    );
    const names = [...modes, 'refused', 'tls', 'bad-header'];

    const answers: unknown[] = [];
    const listed = (await rpc(t, user, { jsonrpc: '2.0', id: 1, method: 'tools/list' }).expect(200)).body;
    answers.push(listed);
    expect(listed.result.tools.filter((tool: { name: string }) => tool.name.includes('__'))).toEqual([]);
    for (const [i, name] of names.entries()) {
      const called = (await rpc(t, user, call(10 + i, `${name}__echo`, {})).expect(200)).body;
      answers.push(called);
      expect(called.result).toMatchObject({
        isError: true,
        content: [
          { text: expect.stringMatching(new RegExp(`^(The MCP server ${name} (did not answer|answered with an error)|upstream)`)) },
        ],
      });
    }
    answers.push((await rpc(t, user, { jsonrpc: '2.0', id: 2, method: 'resources/list' }).expect(200)).body);
    const audited: { row: string }[] = await t.db.dataSource.query('SELECT t::text AS row FROM audit_events AS t');
    expect(audited.length).toBeGreaterThan(0);

    const seen = [JSON.stringify(answers), ...logLines, ...audited.map(({ row }) => row)];
    expect(secrets.filter((secret) => seen.some((text) => text.includes(secret)))).toEqual([]);
    for (const name of names) expect(logLines.some((line) => line.includes(`MCP server ${name} (`))).toBe(true);
  });
});

describe('a header value moved in SQL to another server of the same owner', () => {
  it("no longer decrypts: that server's tools are withheld, the other servers and the built-ins stay listed and callable", async () => {
    const user = await makeKey(t);
    const create = async (name: string, headers?: Record<string, string>) =>
      (await servers(user, { action: 'create', data: { name, url: upstream.url, ...(headers && { headers }) } })).structuredContent.record
        .id as string;
    const origin = await create('origin', { Authorization: secret });
    const target = await create('target', { Authorization: 'Bearer its-own' });
    await create('plain');
    await t.db.dataSource.query(
      `UPDATE resource_records SET data = jsonb_set(data, '{headers}', (SELECT data->'headers' FROM resource_records WHERE id = $2)), updated_at = now() WHERE id = $1`,
      [target, origin],
    );
    const unreadableBefore = await unreadableCount();
    const listed = (await rpc(t, user, { jsonrpc: '2.0', id: 1, method: 'tools/list' }).expect(200)).body.result.tools.map(
      (tool: { name: string }) => tool.name,
    );
    expect(listed).toEqual(expect.arrayContaining(['mcp_servers', 'origin__echo', 'plain__echo']));
    expect(listed.filter((name: string) => name.startsWith('target__'))).toEqual([]);
    upstream.seenHeaders.length = 0;
    const refused = (await rpc(t, user, call(2, 'target__echo', { text: 'x' })).expect(200)).body.result;
    expect(refused).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/stored header values of this MCP server do not decrypt/) }],
    });
    expect(authorizationsAt(upstream)).toEqual([]);
    expect((await rpc(t, user, call(3, 'origin__echo', { text: 'x' })).expect(200)).body.result.isError).toBeFalsy();
    expect(new Set(authorizationsAt(upstream))).toEqual(new Set([secret]));
    expect((await servers(user, { action: 'list' })).structuredContent.records.map((r: { data: { name: string } }) => r.data.name)).toEqual(
      ['origin', 'target', 'plain'],
    );
    expect(logLines.some((line) => line.includes(`MCP server ${target}: its stored header values do not decrypt`))).toBe(true);
    expect(await unreadableCount()).toBeGreaterThan(unreadableBefore);
    expect(logLines.filter((line) => line.includes(token))).toEqual([]);
    // Its owner sets the headers again, and it is back.
    expect((await servers(user, { action: 'update', id: target, data: { description: 'x' } })).isError).toBe(true);
    expect(
      (await servers(user, { action: 'update', id: target, data: { headers: { Authorization: 'Bearer its-own' } } })).isError,
    ).toBeFalsy();
    expect((await rpc(t, user, call(4, 'target__echo', { text: 'x' })).expect(200)).body.result.isError).toBeFalsy();
  });
});

describe('MAX_MCP_SERVERS_PER_USER', () => {
  const create = (key: TestKey, name: string) => servers(key, { action: 'create', data: { name, url: upstream.url } });

  it('refuses the 21st server clearly and writes nothing', async () => {
    const user = await makeKey(t);
    for (let i = 0; i < 20; i += 1) expect((await create(user, `s${i}`)).isError).toBeFalsy();
    const refused = await create(user, 's20');
    expect(refused).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/already have 20 MCP servers.*MAX_MCP_SERVERS_PER_USER/) }],
    });
    expect((await servers(user, { action: 'list' })).structuredContent.records).toHaveLength(20);
    expect((await servers(user, { action: 'query', data: { where: { name: 's20' } } })).structuredContent.records).toEqual([]);
  });

  it('holds when the creates race', async () => {
    const user = await makeKey(t);
    const results = await Promise.all(Array.from({ length: 26 }, (_, i) => create(user, `r${i}`)));
    expect(results.filter((r) => !r.isError)).toHaveLength(20);
    expect((await servers(user, { action: 'list' })).structuredContent.records).toHaveLength(20);
  });
});
