import http from 'node:http';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import { Agent, Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { fetchBounded } from '../../../../src/adapters/outbound/bounded-fetch';
import { ScannerKeyList } from '../../../../src/adapters/secret-scanning/scanner-key-list';
import { testCa } from '../../../support/local-ca';
import { scannerKey } from '../../../support/test-secret-scanner';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** One https and one http server on loopback; each request is routed by path to a handler the test sets. */
const routes = new Map<string, Handler>();
const hits: string[] = [];
const route: Handler = (req, res) => {
  hits.push(`${req.socket.localPort}${req.url}`);
  const handler = routes.get(req.url ?? '');
  if (handler) handler(req, res);
  else res.writeHead(404).end();
};

let secure: https.Server;
let plain: http.Server;
let httpsBase: string;
let httpBase: string;
let previousDispatcher: Dispatcher;

beforeAll(async () => {
  // A certificate for 127.0.0.1, trusted by the fetches of this file only.
  const ca = await testCa();
  secure = https.createServer({ key: ca.serverKey, cert: ca.serverCert }, route);
  plain = http.createServer(route);
  await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  httpsBase = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
  httpBase = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  previousDispatcher = getGlobalDispatcher();
  setGlobalDispatcher(new Agent({ connect: { ca: ca.caCert } }));
});
afterAll(async () => {
  setGlobalDispatcher(previousDispatcher);
  for (const server of [secure, plain]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
beforeEach(() => {
  routes.clear();
  hits.length = 0;
});

const BOUNDS = { what: 'the document', timeoutMs: 1000, maxBytes: 1024 };
const redirectTo =
  (location: string): Handler =>
  (_req, res) =>
    res.writeHead(302, { Location: location }).end();
const answer =
  (body: string): Handler =>
  (_req, res) =>
    res.end(body);

describe('fetchBounded', () => {
  it('reads a document over https', async () => {
    routes.set('/doc', answer('{"keys":[]}'));
    expect(await fetchBounded(`${httpsBase}/doc`, BOUNDS)).toBe('{"keys":[]}');
  });

  it('refuses a redirect from https to http, and never asks the http address', async () => {
    routes.set('/doc', redirectTo(`${httpBase}/doc`));
    await expect(fetchBounded(`${httpsBase}/doc`, BOUNDS)).rejects.toThrow('the document redirected from https: to http:; refused');
    expect(hits.filter((hit) => hit.startsWith(`${new URL(httpBase).port}/`))).toEqual([]);
  });

  it('follows a redirect from https to https, and from http to http (an http URL is allowed outside production only)', async () => {
    routes.set('/old', redirectTo('/doc'));
    routes.set('/doc', answer('moved'));
    expect(await fetchBounded(`${httpsBase}/old`, BOUNDS)).toBe('moved');
    expect(await fetchBounded(`${httpBase}/old`, BOUNDS)).toBe('moved');
  });

  it('refuses a fourth redirect', async () => {
    for (let i = 0; i < 4; i += 1) routes.set(`/r${i}`, redirectTo(`/r${i + 1}`));
    routes.set('/r4', answer('too far'));
    await expect(fetchBounded(`${httpsBase}/r0`, BOUNDS)).rejects.toThrow('redirected more than 3 times');
  });

  it.each([
    ['said by its length', answer('x'.repeat(2000))],
    [
      'sent without a length',
      (_req, res) => {
        res.write('x'.repeat(600));
        res.write('x'.repeat(600));
        res.end();
      },
    ],
  ])('refuses a document larger than maxBytes, %s', async (_case, handler) => {
    routes.set('/big', handler);
    await expect(fetchBounded(`${httpsBase}/big`, BOUNDS)).rejects.toThrow('the document is larger than 1024 bytes');
  });

  it('gives up on a document that drips in past the deadline, body included', async () => {
    routes.set('/drip', (_req, res) => {
      res.write('{');
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    await expect(fetchBounded(`${httpsBase}/drip`, { ...BOUNDS, maxBytes: 1024 * 1024 })).rejects.toThrow();
  });

  it('refuses an answer other than 2xx', async () => {
    routes.set('/doc', (_req, res) => res.writeHead(500).end('{"keys":[]}'));
    await expect(fetchBounded(`${httpsBase}/doc`, BOUNDS)).rejects.toThrow('the document answered HTTP 500');
  });
});

describe("the secret scanner's key list", () => {
  it('is not taken from an http address an https key list redirects to', async () => {
    const pem = scannerKey('k').publicKey.export({ type: 'spki', format: 'pem' });
    routes.set('/keys', redirectTo(`${httpBase}/keys-in-clear`));
    routes.set('/keys-in-clear', answer(JSON.stringify({ public_keys: [{ key_identifier: 'k', key: pem }] })));
    const warnings: string[] = [];
    const list = new ScannerKeyList({
      url: `${httpsBase}/keys`,
      timeoutMs: 1000,
      maxBytes: 4096,
      maxKeys: 3,
      refetchIntervalMs: 60_000,
      maxAgeMs: 3_600_000,
      now: () => 0,
      warn: (message, error) => warnings.push(`${message}: ${(error as Error).message}`),
    });
    expect(await list.keyFor('k')).toEqual({ unavailable: true, retryAfterSeconds: 60 });
    expect(warnings.join()).toContain('redirected from https: to http:; refused');
    expect(hits.filter((hit) => hit.startsWith(`${new URL(httpBase).port}/`))).toEqual([]);
  });
});
