import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { FixedClock } from '../fakes/fixed-clock';
import { makeKey, rpc, TestKey } from '../support/mcp-keys';
import { eventually, Replica, startReplica } from '../support/replica';
import { startTestApp, TestApp } from '../support/test-app';
import { scannerKey, TestSecretScanner } from '../support/test-secret-scanner';

const PATH = '/api/v1/secret-scanning/reports';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const leak = (token: string, extra: object = {}) => ({
  token,
  type: 'keygate_api_key',
  url: 'https://github.com/acme/app/blob/main/.env',
  source: 'content',
  ...extra,
});
const unknownKey = () => `svc_${randomBytes(32).toString('hex')}`;

let t: TestApp;
let scanner: TestSecretScanner;
const clock = new FixedClock(new Date());
const logLines: string[] = [];

beforeAll(async () => {
  scanner = await new TestSecretScanner().start();
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  t = await startTestApp({ SECRET_SCANNING_KEYS_URL: scanner.url }, clock, { logger: pino({ level: 'info' }, sink) });
});
afterAll(async () => {
  await t.close();
  await scanner.stop();
});

/** A report signed by the scanner's current key (or as `headers` says), sent as the exact bytes signed. */
function report(body: unknown, headers?: Record<string, string>) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return request(t.app)
    .post(PATH)
    .set('Content-Type', 'application/json')
    .set(headers ?? scanner.headers(text))
    .send(text);
}
const mcpStatus = async (key: TestKey) => (await rpc(t, key, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status;
const leakEvents = async (keyId: string) =>
  await t.db.dataSource.query<Record<string, unknown>[]>(
    `SELECT actor_type, actor_id, user_id, key_id, target_type, target_id, details, request_id FROM audit_events WHERE action = 'key.leaked' AND key_id = $1`,
    [keyId],
  );
const isRevoked = async (keyId: string) =>
  (await t.db.dataSource.query('SELECT revoked_at FROM api_keys WHERE id = $1', [keyId]))[0].revoked_at !== null;
/** Lets the next unknown identifier fetch the list again. */
const pastRefetchInterval = () => clock.advance(61_000);

describe('POST /api/v1/secret-scanning/reports', () => {
  it('revokes a reported active key at once (then /mcp refuses it) and records key.leaked by the scanner', async () => {
    const key = await makeKey(t);
    expect(await mcpStatus(key)).toBe(200); // cached on this replica
    const res = await report([leak(key.raw)]);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual([{ token_hash: sha256(key.raw), token_type: 'keygate_api_key', label: 'true_positive' }]);
    expect(await mcpStatus(key)).toBe(401);
    expect(await isRevoked(key.id)).toBe(true);
    expect(await leakEvents(key.id)).toEqual([
      {
        actor_type: 'scanner',
        actor_id: scanner.current.identifier,
        user_id: key.user,
        key_id: key.id,
        target_type: 'api_key',
        target_id: key.id,
        details: { url: 'https://github.com/acme/app/blob/main/.env', source: 'content', token_type: 'keygate_api_key' },
        request_id: res.headers['x-request-id'],
      },
    ]);
  });

  it("answers in request order with each token's SHA-256: active, revoked already, expired, unknown, wrong format, and a repeat", async () => {
    const active = await makeKey(t);
    const revoked = await makeKey(t);
    await request(t.app)
      .delete(`/api/v1/api-keys/${revoked.id}`)
      .set('Authorization', `Bearer ${t.userToken(revoked.user)}`)
      .expect(204);
    const expiring = await request(t.app)
      .post('/api/v1/api-keys')
      .set('Authorization', `Bearer ${t.userToken()}`)
      .send({ name: 'short', expires_at: new Date(clock.now().getTime() + 1000).toISOString() })
      .expect(201);
    clock.advance(2000);
    const tokens = [revoked.raw, active.raw, expiring.body.raw_key, unknownKey(), 'ghp_notours', active.raw];
    const res = await report(tokens.map((token, i) => leak(token, { type: `type-${i}` })));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      tokens.map((token, i) => ({
        token_hash: sha256(token),
        token_type: `type-${i}`,
        label: token === active.raw ? 'true_positive' : 'false_positive',
      })),
    );
    expect(await leakEvents(active.id)).toHaveLength(1);
    expect(await leakEvents(revoked.id)).toEqual([]);
    expect(await isRevoked(expiring.body.id)).toBe(false);
  });

  it('answers an empty report with an empty array', async () => {
    expect((await report([])).body).toEqual([]);
  });

  describe('refuses with 401 and does nothing', () => {
    const signedBody = (key: TestKey) => JSON.stringify([leak(key.raw)]);
    it.each([
      ['no identifier header', (body: string) => ({ 'Github-Public-Key-Signature': scanner.headers(body)['Github-Public-Key-Signature'] })],
      ['no signature header', (_body: string) => ({ 'Github-Public-Key-Identifier': scanner.current.identifier })],
      ['a signature that is not base64', (body: string) => ({ ...scanner.headers(body), 'Github-Public-Key-Signature': 'not base64!' })],
      [
        'a base64 signature that is not DER',
        (body: string) => ({ ...scanner.headers(body), 'Github-Public-Key-Signature': Buffer.from('junk').toString('base64') }),
      ],
      ['a signature of another body', (body: string) => scanner.headers(`${body} `)],
      [
        'a signature by a key not in the list, under a listed identifier',
        (body: string) => scanner.headers(body, { ...scannerKey(scanner.current.identifier) }),
      ],
      ['a signature by a key under an unknown identifier', (body: string) => scanner.headers(body, scannerKey('unknown-identifier'))],
    ])('%s', async (_case, headersFor) => {
      const key = await makeKey(t);
      const body = signedBody(key);
      const res = await request(t.app).post(PATH).set('Content-Type', 'application/json').set(headersFor(body)).send(body);
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ type: 'urn:keygate:problem:invalid-signature', status: 401 });
      expect(JSON.stringify(res.body)).not.toContain(key.raw);
      expect(await isRevoked(key.id)).toBe(false);
      expect(await mcpStatus(key)).toBe(200);
      expect(await leakEvents(key.id)).toEqual([]);
    });
  });

  it('fetches the list again for an unknown identifier, so a key the scanner rotated to is accepted', async () => {
    const rotated = scannerKey();
    scanner.keys.push(rotated);
    pastRefetchInterval();
    const before = scanner.requests;
    const key = await makeKey(t);
    const body = JSON.stringify([leak(key.raw)]);
    const res = await report(body, scanner.headers(body, rotated));
    expect(res.status).toBe(200);
    expect(res.body[0].label).toBe('true_positive');
    expect(scanner.requests).toBe(before + 1);
    expect((await leakEvents(key.id))[0].actor_id).toBe(rotated.identifier);
    // Known now: no more fetches.
    expect((await report([])).status).toBe(200);
    expect((await report([], scanner.headers('[]', scanner.keys[0]))).status).toBe(200);
    expect(scanner.requests).toBe(before + 1);
  });

  it('fetches at most once per minute however many unknown identifiers come, and answers 401 in between', async () => {
    pastRefetchInterval();
    const before = scanner.requests;
    for (let i = 0; i < 5; i += 1) {
      expect((await report([], scanner.headers('[]', scannerKey(`forged-${i}`)))).status).toBe(401);
    }
    expect(scanner.requests).toBe(before + 1);
    // Listed after that fetch: still unknown until the minute has passed.
    const late = scannerKey();
    scanner.keys.push(late);
    expect((await report([], scanner.headers('[]', late))).status).toBe(401);
    expect(scanner.requests).toBe(before + 1);
    clock.advance(30_000);
    expect((await report([], scanner.headers('[]', late))).status).toBe(401);
    clock.advance(31_000);
    expect((await report([], scanner.headers('[]', late))).status).toBe(200);
    expect(scanner.requests).toBe(before + 2);
  });

  it('keeps using the keys it holds while the list cannot be fetched', async () => {
    scanner.failWith = 500;
    try {
      pastRefetchInterval();
      const before = scanner.requests;
      expect((await report([], scanner.headers('[]', scannerKey('unknown-while-down')))).status).toBe(401);
      expect(scanner.requests).toBe(before + 1);
      expect((await report([])).status).toBe(200);
    } finally {
      scanner.failWith = null;
    }
  });

  it.each([
    ['more than 1000 reports', (raw: string) => [leak(raw), ...Array.from({ length: 1000 }, () => leak('x'))], 'body'],
    ['an element without a token', (raw: string) => [leak(raw), { type: 't' }], '[1].token'],
    ['a token that is not a string', (raw: string) => [leak(raw), leak(7 as unknown as string)], '[1].token'],
    ['a type that is not a string', (raw: string) => [leak(raw), leak('x', { type: ['t'] })], '[1].type'],
    ['an object instead of an array', (raw: string) => leak(raw), 'body'],
    ['a body that is not JSON', (raw: string) => `[${JSON.stringify(leak(raw))}`, 'body'],
  ])('answers 400 for %s, signed, and revokes nothing', async (_case, bodyFor, field) => {
    const key = await makeKey(t);
    const res = await report(bodyFor(key.raw));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(JSON.stringify(res.body)).not.toContain(key.raw.slice(4));
    expect(await isRevoked(key.id)).toBe(false);
    expect(await leakEvents(key.id)).toEqual([]);
  });

  it('answers 413 past 1 MiB, before looking at the signature', async () => {
    const body = JSON.stringify([leak('x', { url: 'u'.repeat(1024 * 1024) })]);
    const res = await report(body, { 'Github-Public-Key-Identifier': 'x', 'Github-Public-Key-Signature': 'x' });
    expect(res.status).toBe(413);
    expect(res.body.detail).toBe('The request body exceeds 1 MiB');
  });

  it('answers 415 for a compressed body instead of inflating it', async () => {
    const res = await request(t.app).post(PATH).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('[]');
    expect(res.status).toBe(415);
  });

  it('needs no user token, and a user token does not stand in for the signature', async () => {
    const res = await request(t.app)
      .post(PATH)
      .set('Authorization', `Bearer ${t.adminToken()}`)
      .set('Content-Type', 'application/json')
      .send('[]');
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('urn:keygate:problem:invalid-signature');
  });

  it('refuses the key on another replica within 100 ms', async () => {
    let other: Replica | undefined;
    try {
      other = await startReplica(t.db.url);
      const key = await makeKey(t);
      await other.validateKey.execute({ rawKey: key.raw }); // cached there
      await report([leak(key.raw)]).expect(200);
      const elapsed = await eventually(
        () =>
          other!.validateKey.execute({ rawKey: key.raw }).then(
            () => false,
            () => true,
          ),
        100,
        1,
      );
      expect(elapsed).toBeLessThanOrEqual(100);
    } finally {
      await other?.close();
    }
  });

  it('never writes a reported token to the log', async () => {
    const key = await makeKey(t);
    await report([leak(key.raw)]).expect(200);
    await report([leak(key.raw), { type: 'x' }]).expect(400);
    const logged = logLines.join('\n');
    expect(logged).toContain(PATH);
    expect(logged).not.toContain(key.raw.slice(4));
  });
});

describe('without SECRET_SCANNING_KEYS_URL', () => {
  it('answers 404 like any unknown route', async () => {
    const plain = await startTestApp();
    try {
      const res = await request(plain.app).post(PATH).set('Content-Type', 'application/json').send('[]');
      const unknown = await request(plain.app).post('/api/v1/no-such-route').set('Content-Type', 'application/json').send('[]');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ ...unknown.body, detail: `No route for POST ${PATH}` });
    } finally {
      await plain.close();
    }
  });
});

describe('when the key list was never fetched', () => {
  it('answers 503 with Retry-After while it cannot be, then accepts reports once it can', async () => {
    const down = await new TestSecretScanner().start();
    down.failWith = 503;
    const ownClock = new FixedClock(new Date());
    const app = await startTestApp({ SECRET_SCANNING_KEYS_URL: down.url }, ownClock);
    try {
      const res = await request(app.app).post(PATH).set('Content-Type', 'application/json').set(down.headers('[]')).send('[]');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('60');
      ownClock.advance(20_000);
      const again = await request(app.app).post(PATH).set('Content-Type', 'application/json').set(down.headers('[]')).send('[]');
      expect(again.status).toBe(503);
      expect(again.headers['retry-after']).toBe('40');
      expect(down.requests).toBe(1);
      down.failWith = null;
      ownClock.advance(40_000);
      await request(app.app).post(PATH).set('Content-Type', 'application/json').set(down.headers('[]')).send('[]').expect(200);
    } finally {
      await app.close();
      await down.stop();
    }
  });
});
